package io.raftline.client.consumer.assignor;

import io.raftline.client.common.TopicPartition;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kafka's "sticky" under the eager protocol: balanced, and moving as few partitions as possible (see
 * {@link StickyPlanner}). Eager members give up everything before rejoining, so each member remembers its last
 * assignment and generation and sends them in its subscription's user data; the leader rebuilds ownership from them.
 */
public final class StickyAssignor implements ConsumerPartitionAssignor {

    public static final String NAME = "sticky";

    private List<TopicPartition> lastAssignment = List.of();
    private int lastGeneration = -1;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public synchronized ByteBuffer subscriptionUserData(Set<String> topics) {
        return ByteBuffer.wrap(ConsumerProtocol.serializeSubscription(new Subscription(List.of(), null, lastAssignment,
            lastGeneration)));
    }

    @Override
    public synchronized void onAssignment(Assignment assignment, int generationId) {
        lastAssignment = assignment.partitions();
        lastGeneration = generationId;
    }

    @Override
    public GroupAssignment assign(Map<String, Integer> partitionsPerTopic, GroupSubscription subscriptions) {
        Map<String, Set<String>> topics = new HashMap<>();
        Map<String, List<TopicPartition>> claims = new HashMap<>();
        Map<String, Integer> generations = new HashMap<>();
        subscriptions.subscriptions().forEach((m, s) -> {
            topics.put(m, new HashSet<>(s.topics()));
            Subscription previous = s;
            if (s.userData() != null && s.userData().remaining() > 0) {
                byte[] b = new byte[s.userData().remaining()];
                s.userData().duplicate().get(b);
                try {
                    previous = ConsumerProtocol.deserializeSubscription(b);
                } catch (IllegalArgumentException e) {
                    previous = s; // another assignor's data: fall back to what the member says it owns
                }
            }
            claims.put(m, previous.ownedPartitions());
            generations.put(m, previous.generationId());
        });
        return AssignorSupport.toGroupAssignment(
            StickyPlanner.plan(partitionsPerTopic, topics, StickyPlanner.validClaims(claims, generations)));
    }
}
