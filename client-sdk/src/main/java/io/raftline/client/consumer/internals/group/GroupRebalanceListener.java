package io.raftline.client.consumer.internals.group;

import io.raftline.client.common.TopicPartition;
import java.util.Collection;

/**
 * What the consumer hears about its partitions during rebalances (Kafka's ConsumerRebalanceListener). Called on the
 * thread that calls {@link ConsumerCoordinator#poll} or {@link ConsumerCoordinator#close}, never on the heartbeat
 * thread. Eager protocol: all partitions revoked before each rejoin, the new ones assigned after. Cooperative: only
 * the partitions that move are revoked, after the rebalance that moves them.
 */
public interface GroupRebalanceListener {

    /** The member gives these up; commit their offsets now. Not called with an empty collection. */
    void onPartitionsRevoked(Collection<TopicPartition> partitions);

    /** The member now owns these (under cooperative, only the newly added ones; possibly none). */
    void onPartitionsAssigned(Collection<TopicPartition> partitions);

    /**
     * The member lost these without giving them up (its session expired, it was fenced): others may own them already,
     * so committing their offsets would fail. By default the same as a revocation.
     */
    default void onPartitionsLost(Collection<TopicPartition> partitions) {
        onPartitionsRevoked(partitions);
    }
}
