package io.raftline.metadata.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Server;
import io.grpc.inprocess.InProcessServerBuilder;
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
 * A controller listener registered in {@link LocalControllers} is called in-process: its network address is never
 * used (here it is a black hole that would make every call time out). Unregistered, it is reached over the network.
 */
class LocalControllersTest {

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    @Test
    void aRegisteredListenerIsCalledInProcessAndAnUnregisteredOneOverTheNetwork() throws Exception {
        InetSocketAddress address = ControllerStubs.silentAddress(closeables);
        AtomicInteger heartbeats = new AtomicInteger();
        String name = LocalControllers.serverName(address.getHostString(), address.getPort());
        Server server = InProcessServerBuilder.forName(name).addService(ControllerStubs.countingHeartbeats(heartbeats))
            .build().start();
        closeables.add(() -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
        BrokerHeartbeatRequest request = BrokerHeartbeatRequest.newBuilder().setBrokerId(1).build();

        LocalControllers controllers = new LocalControllers();
        controllers.register(address.getHostString(), address.getPort(), name);
        try {
            assertThat(controllers.isLocal(address)).isTrue();
            ControllerChannel local = new ControllerChannel(List.of(address), SystemTime.INSTANCE, 30_000, controllers);
            closeables.add(local);
            for (int i = 0; i < 3; i++) {
                assertThat(local.brokerHeartbeat(request, 5000).get(10, TimeUnit.SECONDS).getIsFenced()).isFalse();
            }
            assertThat(heartbeats).hasValue(3);
        } finally {
            controllers.unregister(address.getHostString(), address.getPort());
        }

        assertThat(controllers.isLocal(address)).isFalse();
        ControllerChannel remote = new ControllerChannel(List.of(address), SystemTime.INSTANCE, 30_000, controllers);
        closeables.add(remote);
        assertThatThrownBy(() -> remote.brokerHeartbeat(request, 500).get(10, TimeUnit.SECONDS))
            .hasCauseInstanceOf(TimeoutException.class);
        assertThat(heartbeats).hasValue(3);
    }
}
