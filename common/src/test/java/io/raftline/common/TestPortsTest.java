package io.raftline.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TestPortsTest {

    @Test
    void portsAreNeverHandedOutTwiceAndStayBelowTheEphemeralRange() throws Exception {
        Set<Integer> seen = new HashSet<>();
        for (int round = 0; round < 50; round++) {
            int[] ports = TestPorts.free(5);
            for (int port : ports) {
                assertThat(seen.add(port)).as("port %d handed out again", port).isTrue();
                assertThat(port).isBetween(20_000, 31_999);
            }
        }
        // Each one is free: a server can listen on it.
        int port = TestPorts.free();
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            assertThat(s.getLocalPort()).isEqualTo(port);
        }
        assertThat(Arrays.stream(TestPorts.free(3)).distinct().count()).isEqualTo(3);
    }
}
