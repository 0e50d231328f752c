package io.raftline.client.admin;

import java.util.List;

/**
 * The replicas a partition should move to, preferred leader first.
 *
 * @param targetReplicas broker ids
 */
public record NewPartitionReassignment(List<Integer> targetReplicas) {

    /** Copies the list. */
    public NewPartitionReassignment {
        targetReplicas = List.copyOf(targetReplicas);
    }
}
