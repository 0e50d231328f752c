package io.raftline.client.consumer.assignor;

import io.raftline.client.common.TopicPartition;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kafka's "cooperative-sticky": the sticky plan, handed out in two rounds so that no partition is ever owned by two
 * members. Members keep consuming what stays theirs; a partition that must move is left out of everyone's assignment
 * in the first round, its owner gives it up (it is no longer in its assignment) and rejoins, and the second round,
 * which sees it unowned, gives it to its new member.
 */
public final class CooperativeStickyAssignor implements ConsumerPartitionAssignor {

    public static final String NAME = "cooperative-sticky";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.COOPERATIVE, RebalanceProtocol.EAGER);
    }

    @Override
    public GroupAssignment assign(Map<String, Integer> partitionsPerTopic, GroupSubscription subscriptions) {
        Map<String, Set<String>> topics = new HashMap<>();
        Map<String, List<TopicPartition>> claims = new HashMap<>();
        Map<String, Integer> generations = new HashMap<>();
        Map<TopicPartition, Set<String>> claimants = new HashMap<>();
        subscriptions.subscriptions().forEach((m, s) -> {
            topics.put(m, new HashSet<>(s.topics()));
            claims.put(m, s.ownedPartitions());
            generations.put(m, s.generationId());
            s.ownedPartitions().forEach(tp -> claimants.computeIfAbsent(tp, k -> new HashSet<>()).add(m));
        });
        Map<String, List<TopicPartition>> plan = StickyPlanner.plan(partitionsPerTopic, topics,
            StickyPlanner.validClaims(claims, generations));
        // First round: nobody gets a partition that another member still claims.
        plan.forEach((m, tps) -> tps.removeIf(tp -> claimants.getOrDefault(tp, Set.of()).stream().anyMatch(c -> !c.equals(m))));
        return AssignorSupport.toGroupAssignment(plan);
    }
}
