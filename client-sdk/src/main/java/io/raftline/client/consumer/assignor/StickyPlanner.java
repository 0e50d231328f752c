package io.raftline.client.consumer.assignor;

import io.raftline.client.common.TopicPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The plan both sticky assignors compute: as balanced as single moves can make it, moving as few partitions as that
 * needs. Steps: (1) every member keeps the partitions it owned that still exist and that it still subscribes to;
 * (2) each partition nobody kept goes to the least loaded member subscribed to it, the partitions with the fewest
 * candidates first; (3) while some partition could move from its owner to a subscribed member with at least two
 * fewer partitions, the most loaded member gives one to the least loaded candidate. Each move lowers the sum of
 * squared loads, so (3) ends; at its end no single move improves the balance, and with equal subscriptions every
 * member has floor(P/N) or ceil(P/N) partitions. Only loads above the target move, so a member keeps at least
 * min(what it owned, floor(P/N)) of its partitions. Deterministic: ties go to the smaller member id and partition.
 */
final class StickyPlanner {

    private StickyPlanner() {
    }

    /**
     * @param memberTopics every member's subscribed topics
     * @param owned        partitions members own now, each claimed by one member at most (see {@link #validClaims})
     * @return every member's partitions, sorted
     */
    static Map<String, List<TopicPartition>> plan(Map<String, Integer> partitionsPerTopic, Map<String, Set<String>> memberTopics,
                                                  Map<String, List<TopicPartition>> owned) {
        TreeMap<String, TreeSet<TopicPartition>> assigned = new TreeMap<>();
        memberTopics.keySet().forEach(m -> assigned.put(m, new TreeSet<>()));
        Map<String, List<String>> candidates = new HashMap<>();
        new TreeMap<>(memberTopics).forEach((m, topics) -> topics.forEach(t -> {
            if (partitionsPerTopic.containsKey(t)) {
                candidates.computeIfAbsent(t, k -> new ArrayList<>()).add(m);
            }
        }));
        TreeSet<TopicPartition> unowned = new TreeSet<>();
        candidates.keySet().forEach(t -> {
            for (int p = 0; p < partitionsPerTopic.get(t); p++) {
                unowned.add(new TopicPartition(t, p));
            }
        });
        // (1) keep
        assigned.forEach((m, mine) -> {
            for (TopicPartition tp : owned.getOrDefault(m, List.of())) {
                if (memberTopics.get(m).contains(tp.topic()) && unowned.remove(tp)) {
                    mine.add(tp);
                }
            }
        });
        // (2) place the rest
        List<TopicPartition> rest = new ArrayList<>(unowned);
        rest.sort(Comparator.<TopicPartition>comparingInt(tp -> candidates.get(tp.topic()).size()).thenComparing(tp -> tp));
        for (TopicPartition tp : rest) {
            assigned.get(leastLoaded(candidates.get(tp.topic()), assigned)).add(tp);
        }
        // (3) balance
        boolean moved = true;
        while (moved) {
            moved = false;
            List<String> byLoad = new ArrayList<>(assigned.keySet());
            byLoad.sort(Comparator.<String>comparingInt(m -> -assigned.get(m).size()).thenComparing(m -> m));
            outer:
            for (String from : byLoad) {
                int load = assigned.get(from).size();
                for (TopicPartition tp : assigned.get(from).descendingSet()) {
                    String to = leastLoaded(candidates.get(tp.topic()), assigned);
                    if (assigned.get(to).size() < load - 1) {
                        assigned.get(from).remove(tp);
                        assigned.get(to).add(tp);
                        moved = true;
                        break outer;
                    }
                }
            }
        }
        Map<String, List<TopicPartition>> out = new HashMap<>();
        assigned.forEach((m, tps) -> out.put(m, new ArrayList<>(tps)));
        return out;
    }

    private static String leastLoaded(List<String> members, Map<String, TreeSet<TopicPartition>> assigned) {
        String best = null;
        for (String m : members) {
            if (best == null || assigned.get(m).size() < assigned.get(best).size()) {
                best = m;
            }
        }
        return best;
    }

    /**
     * Who owns what, from the members' claims: a partition claimed by several members belongs to the one claiming it
     * from the newest generation; claimed by several from that same generation, to nobody (it is placed afresh).
     */
    static Map<String, List<TopicPartition>> validClaims(Map<String, List<TopicPartition>> claims, Map<String, Integer> generations) {
        Map<TopicPartition, List<String>> claimants = new HashMap<>();
        new TreeMap<>(claims).forEach((m, tps) -> tps.forEach(tp -> claimants.computeIfAbsent(tp, k -> new ArrayList<>()).add(m)));
        Map<String, List<TopicPartition>> out = new HashMap<>();
        claimants.forEach((tp, ms) -> {
            int newest = ms.stream().mapToInt(m -> generations.getOrDefault(m, -1)).max().orElse(-1);
            List<String> atNewest = ms.stream().filter(m -> generations.getOrDefault(m, -1) == newest).toList();
            if (atNewest.size() == 1) {
                out.computeIfAbsent(atNewest.get(0), k -> new ArrayList<>()).add(tp);
            }
        });
        return out;
    }
}
