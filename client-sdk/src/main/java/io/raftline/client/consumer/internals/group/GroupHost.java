package io.raftline.client.consumer.internals.group;

import io.raftline.client.common.Node;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What {@link ConsumerCoordinator} needs from the consumer that owns it. Called from the consumer's own thread. */
public interface GroupHost {

    /** The topics the consumer subscribes to now (empty: none; the member then leaves at its next poll). */
    Set<String> subscription();

    /** Brokers to ask where the coordinator is: the metadata's live brokers, or the bootstrap addresses. */
    List<Node> brokers();

    /**
     * The partition counts of these topics; topics that do not exist are left out. With {@code timeoutMs} 0 it answers
     * from what the consumer's metadata knows now (the consumer keeps it fresh and starts tracking these topics);
     * otherwise it may wait that long to fetch the counts it does not know.
     */
    Map<String, Integer> partitionCounts(Set<String> topics, long timeoutMs);
}
