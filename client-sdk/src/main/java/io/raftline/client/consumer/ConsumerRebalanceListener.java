package io.raftline.client.consumer;

import io.raftline.client.common.TopicPartition;
import java.util.Collection;

/** Told when a group rebalance takes partitions away or hands new ones over (used with {@code subscribe}). */
public interface ConsumerRebalanceListener {

    /** Before partitions are taken away: commit their offsets here. */
    void onPartitionsRevoked(Collection<TopicPartition> partitions);

    /** After new partitions were assigned. */
    void onPartitionsAssigned(Collection<TopicPartition> partitions);

    /** Partitions were lost without a chance to commit (the member was fenced). */
    default void onPartitionsLost(Collection<TopicPartition> partitions) {
        onPartitionsRevoked(partitions);
    }
}
