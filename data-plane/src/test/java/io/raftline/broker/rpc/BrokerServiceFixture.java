package io.raftline.broker.rpc;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.raftline.broker.metrics.BrokerMetrics;
import io.raftline.broker.replica.ReplicaManagerFixture;
import io.raftline.broker.security.RequestAuthorizer;
import io.raftline.common.SystemTime;
import io.raftline.metadata.client.ControllerChannel;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The broker's whole gRPC service over a fixture's replica manager, serving the fixture's image, with no controller:
 * admin writes it forwards fail after 300 ms (UNAVAILABLE), as with a controller unreachable, and producer ids are
 * not available.
 */
public final class BrokerServiceFixture implements AutoCloseable {

    public final BrokerRpcService service;
    public final ServedImage served = new ServedImage();
    private final ControllerChannel controller;

    public BrokerServiceFixture(ReplicaManagerFixture fixture) {
        BrokerMetrics metrics = new BrokerMetrics(new SimpleMeterRegistry(), fixture.replicaManager, () -> 0, () -> 0,
            fixture.time);
        served.publish(fixture.replicaManager.image());
        controller = new ControllerChannel(List.of(new InetSocketAddress("127.0.0.1", 1)), SystemTime.INSTANCE, 300);
        ProducerIdManager producerIds = new ProducerIdManager(r -> CompletableFuture.failedFuture(
            new IllegalStateException("no controller")), () -> 1, () -> 1);
        service = new BrokerRpcService(fixture.replicaManager, metrics, controller, producerIds, Map.of(), false, served,
            served, new RequestLimits(5, 20, 1 << 20, 5, 1 << 20), p -> true, "fuzz-cluster", RequestAuthorizer.OFF, null,
            null);
    }

    @Override
    public void close() {
        controller.close();
    }
}
