package io.raftline.client.admin;

import io.raftline.client.common.Node;
import java.util.List;

/**
 * One partition in a {@link TopicDescription}.
 *
 * @param partition        the partition number
 * @param leader           its leader, or null when it has none
 * @param leaderEpoch      the leader epoch
 * @param replicas         every replica, in preferred order
 * @param isr              the in-sync replicas
 * @param addingReplicas   replicas being added by a reassignment in progress
 * @param removingReplicas replicas being removed by a reassignment in progress
 */
public record TopicPartitionInfo(int partition, Node leader, int leaderEpoch, List<Node> replicas, List<Node> isr,
                                 List<Integer> addingReplicas, List<Integer> removingReplicas) {

    /** Copies the lists. */
    public TopicPartitionInfo {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
    }
}
