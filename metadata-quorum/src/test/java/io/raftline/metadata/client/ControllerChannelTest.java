package io.raftline.metadata.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.raftline.common.SystemTime;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import io.raftline.protocol.controller.BrokerHeartbeatResponse;
import io.raftline.protocol.controller.ControllerServiceGrpc;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A controller whose host was cut off the network does not refuse connections: calls to it hang until their
 * deadline. A call must still reach the live controller within its own timeout, and later calls must not start
 * with the silent node again.
 */
class ControllerChannelTest {

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    /** Accepts TCP connections and never says a word: what a black-holed host looks like to a client. */
    private InetSocketAddress silentNode() throws Exception {
        ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        List<Socket> accepted = new ArrayList<>();
        Thread acceptor = new Thread(() -> {
            while (!socket.isClosed()) {
                try {
                    accepted.add(socket.accept());
                } catch (Exception closed) {
                    return;
                }
            }
        }, "silent-node");
        acceptor.setDaemon(true);
        acceptor.start();
        closeables.add(socket);
        return new InetSocketAddress("127.0.0.1", socket.getLocalPort());
    }

    private InetSocketAddress liveController(AtomicInteger heartbeats) throws Exception {
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new ControllerServiceGrpc.ControllerServiceImplBase() {
                @Override
                public void brokerHeartbeat(BrokerHeartbeatRequest request, StreamObserver<BrokerHeartbeatResponse> out) {
                    heartbeats.incrementAndGet();
                    out.onNext(BrokerHeartbeatResponse.newBuilder().setIsFenced(false).build());
                    out.onCompleted();
                }
            }).build().start();
        closeables.add(() -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
        return new InetSocketAddress("127.0.0.1", server.getPort());
    }

    @Test
    void aSilentNodeCostsAtMostOneAttemptAndThenIsSkipped() throws Exception {
        AtomicInteger heartbeats = new AtomicInteger();
        InetSocketAddress silent = silentNode();
        InetSocketAddress live = liveController(heartbeats);
        ControllerChannel channel = new ControllerChannel(List.of(silent, live), SystemTime.INSTANCE, 30_000);
        closeables.add(channel);
        BrokerHeartbeatRequest request = BrokerHeartbeatRequest.newBuilder().setBrokerId(1).build();

        // The first call tries the silent node first (it is listed first), gives up on it after half its
        // timeout and still gets its answer from the live one.
        assertThat(channel.brokerHeartbeat(request, 4000).get(10, TimeUnit.SECONDS).getIsFenced()).isFalse();
        assertThat(heartbeats).hasValue(1);
        // The next calls start at the node that answered: each is answered long before one attempt's timeout.
        for (int i = 0; i < 3; i++) {
            assertThat(channel.brokerHeartbeat(request, 4000).get(10, TimeUnit.SECONDS).getIsFenced()).isFalse();
        }
        assertThat(heartbeats).hasValue(4);
    }

    @Test
    void everyAttemptLeavesRoomForASecondNode() {
        assertThat(ControllerChannel.attemptTimeout(1000)).isEqualTo(500);
        assertThat(ControllerChannel.attemptTimeout(200)).isEqualTo(ControllerChannel.MIN_ATTEMPT_TIMEOUT_MS);
        assertThat(ControllerChannel.attemptTimeout(30_000)).isEqualTo(ControllerChannel.ATTEMPT_TIMEOUT_MS);
    }
}
