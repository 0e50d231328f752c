package io.raftline.client.common;

import java.util.List;

/**
 * One partition of a topic as metadata describes it, as returned by {@code partitionsFor(topic)}.
 *
 * @param topic           the topic
 * @param partition       the partition number
 * @param leader          the leader, or null when the partition has none
 * @param leaderEpoch     the leader's epoch, -1 if unknown
 * @param replicas        every replica, in preferred order
 * @param inSyncReplicas  the replicas in the ISR
 * @param offlineReplicas replicas whose log is offline
 */
public record PartitionInfo(String topic, int partition, Node leader, int leaderEpoch, List<Node> replicas,
                            List<Node> inSyncReplicas, List<Node> offlineReplicas) {

    /** Copies the lists so the record stays immutable. */
    public PartitionInfo {
        replicas = List.copyOf(replicas);
        inSyncReplicas = List.copyOf(inSyncReplicas);
        offlineReplicas = List.copyOf(offlineReplicas);
    }

    /** The partition as a {@link TopicPartition}. */
    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }
}
