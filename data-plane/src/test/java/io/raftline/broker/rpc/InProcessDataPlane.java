package io.raftline.broker.rpc;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.raftline.broker.metrics.BrokerMetrics;
import io.raftline.broker.replica.ReplicaManagerFixture;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** A fixture's replica manager behind the broker's data-plane RPC, served over in-process gRPC (any caller a node). */
final class InProcessDataPlane implements AutoCloseable {

    final DataPlaneRpc rpc;
    final ManagedChannel channel;
    private final Server server;

    InProcessDataPlane(ReplicaManagerFixture fixture, RequestLimits limits) throws IOException {
        BrokerMetrics metrics = new BrokerMetrics(new SimpleMeterRegistry(), fixture.replicaManager, () -> 0, () -> 0,
            fixture.time);
        rpc = new DataPlaneRpc(fixture.replicaManager, metrics, limits, principal -> true) {
        };
        String name = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(name).directExecutor().addService(rpc).build().start();
        channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow();
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
