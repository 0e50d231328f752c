package io.raftline.client.admin;

import io.raftline.client.common.TopicPartition;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The outcome of {@link Admin#alterPartitionReassignments}: one future per partition. */
public final class AlterPartitionReassignmentsResult {

    private final Map<TopicPartition, CompletableFuture<Void>> futures;

    AlterPartitionReassignmentsResult(Map<TopicPartition, CompletableFuture<Void>> futures) {
        this.futures = Map.copyOf(futures);
    }

    /** One future per item. */
    public Map<TopicPartition, CompletableFuture<Void>> values() {
        return futures;
    }

    /** Completes when every item succeeded; fails with the first item's error otherwise. */
    public CompletableFuture<Void> all() {
        return CompletableFuture.allOf(futures.values().toArray(new CompletableFuture<?>[0]));
    }
}
