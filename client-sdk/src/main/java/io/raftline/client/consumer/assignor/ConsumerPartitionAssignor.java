package io.raftline.client.consumer.assignor;

import io.raftline.client.common.TopicPartition;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Computes a group's assignment on the member the coordinator chose as leader. Every member of a group lists the
 * assignors it can use (in {@code partition.assignment.strategy} order); the coordinator picks one all of them have,
 * by name, so an assignor's name is its identity on the wire. Implementations are deterministic: the same input gives
 * the same assignment on any member.
 */
public interface ConsumerPartitionAssignor {

    /** How members hand partitions over during a rebalance. */
    enum RebalanceProtocol {
        /** Every member gives up everything before it rejoins, then takes its new share. */
        EAGER,
        /** Members keep what stays theirs; a partition that moves is given up first, then assigned in a second round. */
        COOPERATIVE
    }

    /**
     * What a member sends when it joins.
     *
     * @param topics          the topics it subscribes to, sorted
     * @param userData        the assignor's own data, or null
     * @param ownedPartitions the partitions it holds now (cooperative protocol; empty under eager)
     * @param generationId    the generation {@code ownedPartitions} come from, -1 for none
     */
    record Subscription(List<String> topics, ByteBuffer userData, List<TopicPartition> ownedPartitions, int generationId) {
        public Subscription {
            topics = List.copyOf(topics);
            ownedPartitions = List.copyOf(ownedPartitions);
            userData = userData == null ? null : userData.asReadOnlyBuffer();
        }

        public Subscription(List<String> topics) {
            this(topics, null, List.of(), -1);
        }
    }

    /**
     * What a member gets.
     *
     * @param partitions its partitions, sorted
     * @param userData   the assignor's own data, or null
     */
    record Assignment(List<TopicPartition> partitions, ByteBuffer userData) {
        public Assignment {
            partitions = List.copyOf(partitions);
            userData = userData == null ? null : userData.asReadOnlyBuffer();
        }

        public Assignment(List<TopicPartition> partitions) {
            this(partitions, null);
        }
    }

    /** Every member's subscription, by member id. */
    record GroupSubscription(Map<String, Subscription> subscriptions) {
        public GroupSubscription {
            subscriptions = Map.copyOf(subscriptions);
        }
    }

    /** Every member's assignment, by member id (a member may get an empty one). */
    record GroupAssignment(Map<String, Assignment> assignments) {
        public GroupAssignment {
            assignments = Map.copyOf(assignments);
        }
    }

    /** Data to send in this member's subscription; null for none. Called before every join. */
    default ByteBuffer subscriptionUserData(Set<String> topics) {
        return null;
    }

    /**
     * Computes the assignment. {@code partitionsPerTopic} holds the partition count of every topic some member
     * subscribes to and that exists; topics missing from it are skipped.
     */
    GroupAssignment assign(Map<String, Integer> partitionsPerTopic, GroupSubscription subscriptions);

    /** Called on every member once it received its assignment for {@code generationId}. */
    default void onAssignment(Assignment assignment, int generationId) {
    }

    /** The protocols this assignor supports, the preferred one first. */
    default List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.EAGER);
    }

    /** The name on the wire: "range", "roundrobin", "sticky", "cooperative-sticky". */
    String name();

    /**
     * A fresh assignor of a built-in kind by its Kafka name (or its class name, as Kafka configs often say).
     *
     * @throws IllegalArgumentException for an unknown name
     */
    static ConsumerPartitionAssignor forName(String name) {
        Objects.requireNonNull(name, "name");
        String n = name.trim();
        return switch (n) {
            case RangeAssignor.NAME, "org.apache.kafka.clients.consumer.RangeAssignor" -> new RangeAssignor();
            case RoundRobinAssignor.NAME, "org.apache.kafka.clients.consumer.RoundRobinAssignor" -> new RoundRobinAssignor();
            case StickyAssignor.NAME, "org.apache.kafka.clients.consumer.StickyAssignor" -> new StickyAssignor();
            case CooperativeStickyAssignor.NAME, "org.apache.kafka.clients.consumer.CooperativeStickyAssignor" ->
                new CooperativeStickyAssignor();
            default -> throw new IllegalArgumentException("unknown partition assignor '" + name
                + "'; known: range, roundrobin, sticky, cooperative-sticky");
        };
    }
}
