package io.raftline.common;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for servers a test (or a benchmark) starts and names its port up front: quorum voters, whose
 * addresses are configured before any of them listens, and nodes restarted on the port they had.
 *
 * <p>Two hazards of probing with {@code new ServerSocket(0)} are avoided here. The kernel hands out ports of its
 * ephemeral range (32768 and up on Linux), which are also the local ports of outgoing connections: between the
 * probe and the server's bind, or while a node is stopped for a restart, any connection may take the port, and the
 * server then cannot listen (Ratis's gRPC server ends the JVM when it cannot: "Failed to start Grpc server"). And
 * a probed port is only reserved while probing, so two probes in a row can return the same port. So ports come from
 * below the ephemeral range, and a port this JVM handed out is never handed out again.
 */
public final class TestPorts {

    /** Under the ephemeral range, above the usual fixed service ports. */
    private static final int FIRST = 20_000;
    private static final int LAST = 32_000;

    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private TestPorts() {
    }

    /** One free loopback port. */
    public static int free() {
        return free(1)[0];
    }

    /** {@code count} distinct free loopback ports, each free when returned. */
    public static int[] free(int count) {
        int[] ports = new int[count];
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                ServerSocket socket = bindBelowEphemeralRange();
                held.add(socket);
                ports[i] = socket.getLocalPort();
            }
        } finally {
            held.forEach(TestPorts::closeQuietly);
        }
        return ports;
    }

    private static ServerSocket bindBelowEphemeralRange() {
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(FIRST, LAST);
            if (!HANDED_OUT.add(port)) {
                continue;
            }
            ServerSocket socket = null;
            try {
                socket = new ServerSocket();
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                return socket;
            } catch (IOException e) {
                closeQuietly(socket);
            }
        }
        throw new IllegalStateException("no free port between " + FIRST + " and " + LAST);
    }

    private static void closeQuietly(ServerSocket socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // best effort
            }
        }
    }
}
