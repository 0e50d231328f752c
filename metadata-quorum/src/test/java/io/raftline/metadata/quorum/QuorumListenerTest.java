package io.raftline.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.common.SystemTime;
import io.raftline.common.TestPorts;
import io.raftline.metadata.client.LocalControllers;
import io.raftline.metadata.controller.ControllerConfig;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuorumListenerTest {

    @Test
    void aTakenQuorumListenerIsOneClearErrorAndNothingIsLeftBehind(@TempDir Path metadataDir) throws Exception {
        int quorumPort = TestPorts.free();
        int controllerPort = TestPorts.free();
        QuorumConfig config = QuorumConfig.builder().nodeId(1).clusterId("taken")
            .quorumListener("127.0.0.1", quorumPort).controllerListener("127.0.0.1", controllerPort)
            .voters(Map.of(1, new InetSocketAddress("127.0.0.1", quorumPort)))
            .metadataDir(metadataDir).directoryId("dir-1").build();
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), quorumPort));
            // Ratis's gRPC server, left to find out itself, ends the JVM (System.exit(1)): this test would crash.
            assertThatThrownBy(() -> QuorumNode.start(config, ControllerConfig.defaults(), SystemTime.INSTANCE, null,
                new LocalControllers()))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageStartingWith("cannot listen on quorum.listener 127.0.0.1:" + quorumPort + ": ");
        }
        // The controller listener was released and no Raft storage was formatted.
        try (ServerSocket again = new ServerSocket()) {
            again.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), controllerPort));
        }
        Path ratis = metadataDir.resolve("ratis");
        if (Files.exists(ratis)) {
            try (Stream<Path> s = Files.list(ratis)) {
                assertThat(s).isEmpty();
            }
        }
    }
}
