package io.raftline.metadata.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.raftline.common.SystemTime;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A controller whose host was cut off the network does not refuse connections: calls to it hang until their
 * deadline. Once one call has failed that way, later calls must not start with the silent node again (they did:
 * a broker kept heartbeating a cut-off controller until the new one fenced it).
 */
class ControllerChannelTest {

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private InetSocketAddress liveController(AtomicInteger heartbeats) throws Exception {
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(ControllerStubs.countingHeartbeats(heartbeats)).build().start();
        closeables.add(() -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
        return new InetSocketAddress("127.0.0.1", server.getPort());
    }

    @Test
    void aSilentNodeCostsOneCallAndLaterCallsStartElsewhere() throws Exception {
        AtomicInteger heartbeats = new AtomicInteger();
        InetSocketAddress silent = ControllerStubs.silentAddress(closeables);
        InetSocketAddress live = liveController(heartbeats);
        ControllerChannel channel = new ControllerChannel(List.of(silent, live), SystemTime.INSTANCE, 30_000);
        closeables.add(channel);
        BrokerHeartbeatRequest request = BrokerHeartbeatRequest.newBuilder().setBrokerId(1).build();

        // The first call goes to the silent node (listed first) and spends its whole deadline waiting there.
        assertThatThrownBy(() -> channel.brokerHeartbeat(request, 1000).get(10, TimeUnit.SECONDS))
            .hasCauseInstanceOf(TimeoutException.class);
        // The calls after it do not start with the node that just failed to answer: each is answered by the live one.
        for (int i = 0; i < 3; i++) {
            assertThat(channel.brokerHeartbeat(request, 1000).get(10, TimeUnit.SECONDS).getIsFenced()).isFalse();
        }
        assertThat(heartbeats).hasValue(3);
    }
}
