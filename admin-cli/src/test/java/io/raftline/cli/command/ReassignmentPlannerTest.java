package io.raftline.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.client.common.TopicPartition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReassignmentPlannerTest {

    /** "1:2,2:3" → t-0 on [1,2], t-1 on [2,3]. */
    private static Map<TopicPartition, List<Integer>> assignment(String text) {
        Map<TopicPartition, List<Integer>> out = new LinkedHashMap<>();
        List<List<Integer>> parts = ReplicaAssignment.parse(text);
        for (int p = 0; p < parts.size(); p++) {
            out.put(new TopicPartition("t", p), parts.get(p));
        }
        return out;
    }

    private static String text(Map<TopicPartition, List<Integer>> plan) {
        List<String> groups = new ArrayList<>();
        plan.values().forEach(r -> groups.add(String.join(":", r.stream().map(String::valueOf).toList())));
        return String.join(",", groups);
    }

    private static Map<Integer, String> noRacks(int... ids) {
        Map<Integer, String> out = new HashMap<>();
        Arrays.stream(ids).forEach(id -> out.put(id, null));
        return out;
    }

    private static int moved(Map<TopicPartition, List<Integer>> before, Map<TopicPartition, List<Integer>> after) {
        int moved = 0;
        for (TopicPartition tp : before.keySet()) {
            moved += (int) after.get(tp).stream().filter(b -> !before.get(tp).contains(b)).count();
        }
        return moved;
    }

    private static Map<Integer, Integer> counts(Map<TopicPartition, List<Integer>> plan, boolean leadersOnly) {
        Map<Integer, Integer> out = new HashMap<>();
        for (List<Integer> r : plan.values()) {
            for (int b : leadersOnly ? r.subList(0, 1) : r) {
                out.merge(b, 1, Integer::sum);
            }
        }
        return out;
    }

    private static int spread(Map<Integer, Integer> counts, List<Integer> brokers) {
        int max = brokers.stream().mapToInt(b -> counts.getOrDefault(b, 0)).max().orElseThrow();
        int min = brokers.stream().mapToInt(b -> counts.getOrDefault(b, 0)).min().orElseThrow();
        return max - min;
    }

    /** current, targets, expected plan, replicas moved. */
    @Test
    void movesAsLittleAsItCanTable() {
        Object[][] table = {
            // already balanced on the targets: nothing moves, not even a leader
            {"1:2,2:3,3:1", List.of(1, 2, 3), "1:2,2:3,3:1", 0},
            {"1,2,3,1,2,3", List.of(1, 2, 3), "1,2,3,1,2,3", 0},
            // removing broker 3: only its replicas move
            {"1:2,2:3,3:1", List.of(1, 2), "1:2,2:1,1:2", 2},
            {"1,2,3,1,2,3", List.of(1, 2), "1,2,1,1,2,2", 2},
            // adding broker 4: a fair share (N/B rounded) goes onto it, no more
            {"1,2,3,1,2,3,1,2", List.of(1, 2, 3, 4), "1,2,3,1,2,3,4,4", 2},
            {"1:2,2:3,3:1,1:2,2:3,3:1", List.of(1, 2, 3, 4), "1:2,2:3,3:1,1:4,2:4,4:3", 3},
            // moving everything off one broker onto another
            {"1,1", List.of(2), "2,2", 2},
        };
        for (Object[] row : table) {
            Map<TopicPartition, List<Integer>> current = assignment((String) row[0]);
            @SuppressWarnings("unchecked")
            List<Integer> targets = (List<Integer>) row[1];
            Map<TopicPartition, List<Integer>> plan = ReassignmentPlanner.plan(current, targets, noRacks(1, 2, 3, 4));
            assertThat(text(plan)).as("%s onto %s", row[0], targets).isEqualTo(row[2]);
            assertThat(moved(current, plan)).as("%s onto %s: replicas moved", row[0], targets).isEqualTo(row[3]);
        }
    }

    @Test
    void replicasOfAPartitionGoOnDistinctRacksWhenThereAreEnough() {
        // brokers 1,2 on rack a; 3,4 on rack b; 5,6 on rack c; every partition now on one rack
        Map<Integer, String> racks = Map.of(1, "a", 2, "a", 3, "b", 4, "b", 5, "c", 6, "c");
        Map<TopicPartition, List<Integer>> current = assignment("1:2,3:4,5:6,1:2,3:4,5:6");
        Map<TopicPartition, List<Integer>> plan = ReassignmentPlanner.plan(current, List.of(1, 2, 3, 4, 5, 6), racks);
        for (Map.Entry<TopicPartition, List<Integer>> e : plan.entrySet()) {
            Set<String> used = new HashSet<>();
            e.getValue().forEach(b -> used.add(racks.get(b)));
            assertThat(used).as(e.toString()).hasSize(2);
            // one of its replicas stays where it was
            assertThat(e.getValue()).containsAnyElementsOf(current.get(e.getKey()));
        }
        assertThat(moved(current, plan)).isEqualTo(6);
        assertThat(spread(counts(plan, false), List.of(1, 2, 3, 4, 5, 6))).isZero();
        // already spread over racks: nothing moves
        Map<TopicPartition, List<Integer>> spread = assignment("1:3,3:5,5:1,2:4,4:6,6:2");
        assertThat(ReassignmentPlanner.plan(spread, List.of(1, 2, 3, 4, 5, 6), racks)).isEqualTo(spread);
    }

    @Test
    void fewerRacksThanReplicasStillPlacesEveryReplica() {
        Map<Integer, String> racks = Map.of(1, "a", 2, "a", 3, "a");
        Map<TopicPartition, List<Integer>> plan = ReassignmentPlanner.plan(assignment("1:2:3,1:2:3"), List.of(1, 2, 3), racks);
        assertThat(text(plan)).isEqualTo("1:2:3,2:1:3");
    }

    /** Seeded random placements: shares and leaderships within one of each other, every replica on a target. */
    @Test
    void balancesReplicasAndLeadersOnRandomPlacements() {
        long seed = Long.getLong("planner.seed", 20_261_201L);
        SplittableRandom random = new SplittableRandom(seed);
        for (int run = 0; run < 300; run++) {
            int brokerCount = 1 + random.nextInt(7);
            List<Integer> all = new ArrayList<>();
            for (int b = 1; b <= 8; b++) {
                all.add(b);
            }
            List<Integer> targets = new ArrayList<>(all);
            shuffle(targets, random);
            targets = List.copyOf(targets.subList(0, brokerCount));
            int rf = 1 + random.nextInt(Math.min(3, brokerCount));
            Map<TopicPartition, List<Integer>> current = new LinkedHashMap<>();
            int partitions = 1 + random.nextInt(20);
            for (int p = 0; p < partitions; p++) {
                List<Integer> shuffled = new ArrayList<>(all);
                shuffle(shuffled, random);
                current.put(new TopicPartition("t", p), List.copyOf(shuffled.subList(0, rf)));
            }
            Map<Integer, String> racks = noRacks(1, 2, 3, 4, 5, 6, 7, 8);
            Map<TopicPartition, List<Integer>> plan = ReassignmentPlanner.plan(current, targets, racks);
            String what = "seed " + seed + " run " + run + ": " + current + " onto " + targets + " gave " + plan;
            for (Map.Entry<TopicPartition, List<Integer>> e : plan.entrySet()) {
                assertThat(e.getValue()).as(what).hasSize(rf).doesNotHaveDuplicates();
                assertThat(targets).as(what).containsAll(e.getValue());
            }
            assertThat(spread(counts(plan, false), targets)).as(what).isLessThanOrEqualTo(1);
            assertThat(spread(counts(plan, true), targets)).as(what).isLessThanOrEqualTo(1);
            // planning the plan again moves nothing
            assertThat(ReassignmentPlanner.plan(plan, targets, racks)).as(what).isEqualTo(plan);
        }
    }

    private static void shuffle(List<Integer> list, SplittableRandom random) {
        for (int i = list.size() - 1; i > 0; i--) {
            java.util.Collections.swap(list, i, random.nextInt(i + 1));
        }
    }

    @Test
    void refusesBadInputWithOneSentence() {
        Map<Integer, String> racks = noRacks(1, 2, 3);
        Object[][] table = {
            {List.of(), "--brokers names no broker"},
            {List.of(1, 1), "--brokers names a broker twice: 1,1"},
            {List.of(1, 9), "--brokers names broker 9, which is not registered (brokers: 1,2,3)"},
            {List.of(1), "partition 0 of 't' has 2 replicas, more than the 1 broker(s) given"},
        };
        for (Object[] row : table) {
            @SuppressWarnings("unchecked")
            List<Integer> targets = (List<Integer>) row[0];
            assertThatThrownBy(() -> ReassignmentPlanner.plan(assignment("1:2"), targets, racks)).as(row[1].toString())
                .isInstanceOf(IllegalArgumentException.class).hasMessage((String) row[1]);
        }
    }
}
