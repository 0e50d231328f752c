package io.raftline.client.admin;

import io.raftline.client.common.Cluster;
import io.raftline.client.common.Node;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The outcome of {@link Admin#describeCluster()}: brokers, controller and cluster id from one metadata answer. */
public final class DescribeClusterResult {

    private final CompletableFuture<Cluster> cluster;

    DescribeClusterResult(CompletableFuture<Cluster> cluster) {
        this.cluster = cluster;
    }

    /** Every registered broker, fenced ones included, sorted by id. */
    public CompletableFuture<Collection<Node>> nodes() {
        return cluster.thenApply(c -> List.copyOf(c.nodes().stream().sorted((a, b) -> Integer.compare(a.id(), b.id())).toList()));
    }

    /** The active controller, or null when there is none. */
    public CompletableFuture<Node> controller() {
        return cluster.thenApply(Cluster::controller);
    }

    /** The cluster id. */
    public CompletableFuture<String> clusterId() {
        return cluster.thenApply(Cluster::clusterId);
    }
}
