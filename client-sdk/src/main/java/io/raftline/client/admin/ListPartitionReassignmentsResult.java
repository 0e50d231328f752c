package io.raftline.client.admin;

import io.raftline.client.common.TopicPartition;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The outcome of {@link Admin#listPartitionReassignments()}: the reassignments in progress. */
public final class ListPartitionReassignmentsResult {

    private final CompletableFuture<Map<TopicPartition, PartitionReassignment>> reassignments;

    ListPartitionReassignmentsResult(CompletableFuture<Map<TopicPartition, PartitionReassignment>> reassignments) {
        this.reassignments = reassignments;
    }

    /** Partitions with a reassignment in progress. */
    public CompletableFuture<Map<TopicPartition, PartitionReassignment>> reassignments() {
        return reassignments;
    }
}
