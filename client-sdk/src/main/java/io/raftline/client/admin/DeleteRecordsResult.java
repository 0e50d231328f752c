package io.raftline.client.admin;

import io.raftline.client.common.TopicPartition;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The outcome of {@link Admin#deleteRecords}: one future per partition, failing with that partition's error. */
public final class DeleteRecordsResult {

    private final Map<TopicPartition, CompletableFuture<DeletedRecords>> futures;

    DeleteRecordsResult(Map<TopicPartition, CompletableFuture<DeletedRecords>> futures) {
        this.futures = Map.copyOf(futures);
    }

    /** Per partition, its low watermark once the leader moved it. */
    public Map<TopicPartition, CompletableFuture<DeletedRecords>> lowWatermarks() {
        return futures;
    }

    /** Completes when every partition succeeded; fails with the first partition's error otherwise. */
    public CompletableFuture<Void> all() {
        return CompletableFuture.allOf(futures.values().toArray(new CompletableFuture<?>[0]));
    }
}
