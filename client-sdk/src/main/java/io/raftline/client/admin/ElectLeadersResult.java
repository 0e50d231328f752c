package io.raftline.client.admin;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.errors.ElectionNotNeededException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** The outcome of {@link Admin#electLeaders}: per partition, empty on success or the error. */
public final class ElectLeadersResult {

    private final CompletableFuture<Map<TopicPartition, Optional<Throwable>>> partitions;

    ElectLeadersResult(CompletableFuture<Map<TopicPartition, Optional<Throwable>>> partitions) {
        this.partitions = partitions;
    }

    /** Per partition: empty when it got the leader asked for, else why not. */
    public CompletableFuture<Map<TopicPartition, Optional<Throwable>>> partitions() {
        return partitions;
    }

    /** Completes when every partition succeeded or needed no election; fails with the first other error. */
    public CompletableFuture<Void> all() {
        return partitions.thenApply(m -> {
            for (Optional<Throwable> e : m.values()) {
                if (e.isPresent() && !(e.get() instanceof ElectionNotNeededException)) {
                    throw e.get() instanceof RuntimeException re ? re : new IllegalStateException(e.get());
                }
            }
            return null;
        });
    }
}
