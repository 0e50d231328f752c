package io.raftline.client.admin;

import io.raftline.client.common.TopicPartition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The outcome of {@link Admin#describeLogs}: one future per broker asked. A broker that does not answer within the
 * per-broker bound fails its own future only, so a dead broker never holds up the others.
 */
public final class DescribeLogsResult {

    private final Map<Integer, CompletableFuture<List<ReplicaLogInfo>>> byBroker;

    DescribeLogsResult(Map<Integer, CompletableFuture<List<ReplicaLogInfo>>> byBroker) {
        this.byBroker = Map.copyOf(byBroker);
    }

    /** Per broker id, the replicas it holds. */
    public Map<Integer, CompletableFuture<List<ReplicaLogInfo>>> values() {
        return byBroker;
    }

    /**
     * The leader replicas' logs by partition, from every broker that answered; partitions whose leader did not
     * answer are absent. Always completes normally, once every broker answered or timed out.
     */
    public CompletableFuture<Map<TopicPartition, ReplicaLogInfo>> leaderLogs() {
        CompletableFuture<?>[] all = byBroker.values().stream()
            .map(f -> f.handle((v, e) -> v))
            .toArray(CompletableFuture<?>[]::new);
        return CompletableFuture.allOf(all).thenApply(ignored -> {
            Map<TopicPartition, ReplicaLogInfo> out = new LinkedHashMap<>();
            for (CompletableFuture<List<ReplicaLogInfo>> f : byBroker.values()) {
                if (f.isDone() && !f.isCompletedExceptionally()) {
                    for (ReplicaLogInfo r : f.join()) {
                        if (r.isLeader()) {
                            out.put(r.partition(), r);
                        }
                    }
                }
            }
            return out;
        });
    }
}
