package io.raftline.cli.command;

import io.raftline.client.common.TopicPartition;
import io.raftline.common.config.ThrottledReplicas;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The replication throttles a reassignment sets, as kafka-reassign-partitions sets them: for every partition that
 * moves, its current replicas (any of them may lead while the move goes on) in the topic's
 * {@code leader.replication.throttled.replicas}, the replicas it gains in {@code follower.replication.throttled
 * .replicas}, and the rate on every broker that holds or gains one of its replicas. A pure function of the current
 * and target assignments; {@link #merge} adds the pairs to what a topic already lists.
 *
 * @param brokers   the brokers to set the rates on
 * @param leaders   per topic, partition to the brokers of its current replicas
 * @param followers per topic, partition to the brokers it gains
 */
public record ReassignmentThrottles(Set<Integer> brokers, Map<String, Map<Integer, Set<Integer>>> leaders,
                                    Map<String, Map<Integer, Set<Integer>>> followers) {

    /** The throttles for moving from {@code current} to {@code target} (partitions already there are left out). */
    public static ReassignmentThrottles of(Map<TopicPartition, List<Integer>> current,
                                           Map<TopicPartition, List<Integer>> target) {
        Set<Integer> brokers = new TreeSet<>();
        Map<String, Map<Integer, Set<Integer>>> leaders = new TreeMap<>();
        Map<String, Map<Integer, Set<Integer>>> followers = new TreeMap<>();
        target.forEach((tp, replicas) -> {
            List<Integer> now = current.getOrDefault(tp, List.of());
            if (new TreeSet<>(now).equals(new TreeSet<>(replicas))) {
                return;
            }
            brokers.addAll(now);
            brokers.addAll(replicas);
            leaders.computeIfAbsent(tp.topic(), k -> new TreeMap<>()).put(tp.partition(), new TreeSet<>(now));
            Set<Integer> adding = new TreeSet<>(replicas);
            adding.removeAll(now);
            followers.computeIfAbsent(tp.topic(), k -> new TreeMap<>()).put(tp.partition(), adding);
        });
        return new ReassignmentThrottles(brokers, leaders, followers);
    }

    /** A topic's list value with {@code pairs} added to what it held ({@code *} stays {@code *}). */
    public static String merge(String existing, Map<Integer, Set<Integer>> pairs) {
        ThrottledReplicas had = ThrottledReplicas.parse(existing);
        if (had.all()) {
            return "*";
        }
        Map<Integer, Set<Integer>> all = new TreeMap<>();
        had.replicas().forEach((p, b) -> all.computeIfAbsent(p, k -> new TreeSet<>()).addAll(b));
        pairs.forEach((p, b) -> all.computeIfAbsent(p, k -> new TreeSet<>()).addAll(b));
        all.values().removeIf(Set::isEmpty);
        return ThrottledReplicas.format(all);
    }
}
