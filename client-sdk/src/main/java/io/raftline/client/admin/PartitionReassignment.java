package io.raftline.client.admin;

import java.util.List;

/**
 * A reassignment in progress.
 *
 * @param replicas         the current replica set (old and new)
 * @param addingReplicas   replicas being added
 * @param removingReplicas replicas to be removed once the added ones are in sync
 */
public record PartitionReassignment(List<Integer> replicas, List<Integer> addingReplicas, List<Integer> removingReplicas) {

    /** Copies the lists. */
    public PartitionReassignment {
        replicas = List.copyOf(replicas);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
    }
}
