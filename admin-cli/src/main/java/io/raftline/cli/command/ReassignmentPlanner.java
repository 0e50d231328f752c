package io.raftline.cli.command;

import io.raftline.client.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@code reassign --generate}: a new placement of some partitions over a set of target brokers that moves as few
 * replicas as it can, spreads each partition over distinct racks, and balances replicas and leaders. A pure
 * function of its inputs (deterministic: ties go to the lower broker id).
 *
 * <p>Every partition keeps its replication factor. With {@code N} replicas over {@code B} target brokers, every
 * broker ends with {@code floor(N/B)} or {@code ceil(N/B)} replicas wherever the racks allow it. The steps:
 * <ol>
 *   <li>keep: every replica on a target broker stays, except (when the targets span at least RF racks) one on a
 *       rack an earlier replica of the same partition already uses;</li>
 *   <li>fill: each missing replica goes to the target broker not yet in the partition on a rack the partition does
 *       not use yet (when one is left), with the fewest replicas;</li>
 *   <li>rebalance: while a broker holds two or more replicas more than another, one replica moves from the fullest
 *       to an emptier broker (a follower before a leader, later partitions first, keeping racks distinct); each such
 *       move is one the balance needs, so nothing moves when the placement is already even;</li>
 *   <li>leaders: the first replica of each partition is chosen so that leader counts differ by at most one where
 *       the replica sets allow it: the current leader first when it stays and is under its share of leaderships,
 *       else the partition's replica with the fewest leaderships; then shifts along chains of partitions even out
 *       the rest. The other replicas keep their order (kept ones first, new ones after).</li>
 * </ol>
 * A broker without a rack counts as its own rack.
 */
public final class ReassignmentPlanner {

    private ReassignmentPlanner() {
    }

    /**
     * The new replica lists, in the order of {@code current}.
     *
     * @param current      every partition to place, with its replicas now (preferred leader first)
     * @param targets      the brokers to place them on
     * @param brokerRacks  every registered broker with its rack (null for none)
     * @throws IllegalArgumentException (one sentence) for no or repeated targets, a target that is not registered, or
     *     a partition with more replicas than there are targets
     */
    public static Map<TopicPartition, List<Integer>> plan(Map<TopicPartition, List<Integer>> current, List<Integer> targets,
                                                          Map<Integer, String> brokerRacks) {
        check(current, targets, brokerRacks);
        List<Integer> brokers = targets.stream().sorted().toList();
        Map<Integer, String> rackOf = new HashMap<>();
        for (int b : brokers) {
            String rack = brokerRacks.get(b);
            rackOf.put(b, rack == null || rack.isEmpty() ? "broker " + b : "rack " + rack);
        }
        int distinctRacks = new HashSet<>(rackOf.values()).size();
        Map<Integer, Integer> counts = new HashMap<>();
        brokers.forEach(b -> counts.put(b, 0));
        Map<TopicPartition, List<Integer>> chosen = new LinkedHashMap<>();
        // keep every replica on a target (one per rack when there are racks enough)
        for (Map.Entry<TopicPartition, List<Integer>> e : current.entrySet()) {
            int rf = e.getValue().size();
            List<Integer> kept = new ArrayList<>();
            for (int r : e.getValue()) {
                if (counts.containsKey(r) && !(distinctRacks >= rf && racksOf(kept, rackOf).contains(rackOf.get(r)))) {
                    kept.add(r);
                    counts.merge(r, 1, Integer::sum);
                }
            }
            chosen.put(e.getKey(), kept);
        }
        // fill what is missing
        for (Map.Entry<TopicPartition, List<Integer>> e : current.entrySet()) {
            List<Integer> replicas = chosen.get(e.getKey());
            int rf = e.getValue().size();
            while (replicas.size() < rf) {
                int next = pickNew(replicas, brokers, rackOf, distinctRacks >= rf, counts);
                replicas.add(next);
                counts.merge(next, 1, Integer::sum);
            }
        }
        rebalance(chosen, brokers, rackOf, distinctRacks, counts);
        return orderLeaders(current, chosen, brokers);
    }

    private static void check(Map<TopicPartition, List<Integer>> current, List<Integer> targets,
                              Map<Integer, String> brokerRacks) {
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("--brokers names no broker");
        }
        if (new HashSet<>(targets).size() != targets.size()) {
            throw new IllegalArgumentException("--brokers names a broker twice: " + join(targets));
        }
        for (int b : targets) {
            if (!brokerRacks.containsKey(b)) {
                throw new IllegalArgumentException("--brokers names broker " + b + ", which is not registered (brokers: "
                    + join(new TreeSet<>(brokerRacks.keySet())) + ")");
            }
        }
        for (Map.Entry<TopicPartition, List<Integer>> e : current.entrySet()) {
            if (e.getValue().size() > targets.size()) {
                throw new IllegalArgumentException("partition " + e.getKey().partition() + " of '" + e.getKey().topic()
                    + "' has " + e.getValue().size() + " replicas, more than the " + targets.size() + " broker(s) given");
            }
        }
    }

    /** The target for one missing replica: a rack the partition lacks (if asked), then the fewest replicas. */
    private static int pickNew(List<Integer> replicas, List<Integer> brokers, Map<Integer, String> rackOf, boolean distinct,
                               Map<Integer, Integer> counts) {
        Set<String> used = racksOf(replicas, rackOf);
        List<Integer> pool = brokers.stream().filter(b -> !replicas.contains(b)).toList();
        if (distinct) {
            List<Integer> newRack = pool.stream().filter(b -> !used.contains(rackOf.get(b))).toList();
            if (!newRack.isEmpty()) {
                pool = newRack;
            }
        }
        int best = pool.get(0);
        for (int b : pool) {
            if (counts.get(b) < counts.get(best)) {
                best = b;
            }
        }
        return best;
    }

    /**
     * While a broker holds two or more replicas more than another, moves one replica from the fullest broker to an
     * emptier one: a follower before a leader, the last partition first, never onto a rack the partition already uses
     * (when racks are enough). Each move lowers the sum of squared counts, so the loop ends.
     */
    private static void rebalance(Map<TopicPartition, List<Integer>> chosen, List<Integer> brokers,
                                  Map<Integer, String> rackOf, int distinctRacks, Map<Integer, Integer> counts) {
        List<TopicPartition> lastFirst = new ArrayList<>(chosen.keySet());
        java.util.Collections.reverse(lastFirst);
        while (true) {
            List<Integer> byLoad = new ArrayList<>(brokers);
            byLoad.sort((a, b) -> counts.get(a).equals(counts.get(b)) ? Integer.compare(a, b)
                : Integer.compare(counts.get(b), counts.get(a)));
            boolean moved = false;
            for (int i = 0; i < byLoad.size() && !moved; i++) {
                int from = byLoad.get(i);
                for (int j = byLoad.size() - 1; j > i && !moved; j--) {
                    int to = byLoad.get(j);
                    if (counts.get(from) - counts.get(to) < 2) {
                        continue;
                    }
                    moved = moveOne(chosen, lastFirst, from, to, rackOf, distinctRacks, true)
                        || moveOne(chosen, lastFirst, from, to, rackOf, distinctRacks, false);
                    if (moved) {
                        counts.merge(from, -1, Integer::sum);
                        counts.merge(to, 1, Integer::sum);
                    }
                }
            }
            if (!moved) {
                return;
            }
        }
    }

    private static boolean moveOne(Map<TopicPartition, List<Integer>> chosen, List<TopicPartition> lastFirst, int from,
                                   int to, Map<Integer, String> rackOf, int distinctRacks, boolean followersOnly) {
        for (TopicPartition tp : lastFirst) {
            List<Integer> replicas = chosen.get(tp);
            int at = replicas.indexOf(from);
            if (at < 0 || replicas.contains(to) || followersOnly && at == 0) {
                continue;
            }
            if (distinctRacks >= replicas.size()) {
                List<Integer> others = new ArrayList<>(replicas);
                others.remove(at);
                if (racksOf(others, rackOf).contains(rackOf.get(to))) {
                    continue;
                }
            }
            replicas.set(at, to);
            return true;
        }
        return false;
    }

    private static Map<TopicPartition, List<Integer>> orderLeaders(Map<TopicPartition, List<Integer>> current,
                                                                    Map<TopicPartition, List<Integer>> chosen,
                                                                    List<Integer> brokers) {
        Shares leaderShares = new Shares(brokers, chosen.size());
        Map<TopicPartition, Integer> leaderOf = new LinkedHashMap<>();
        for (boolean extra : new boolean[] {false, true}) {
            for (Map.Entry<TopicPartition, List<Integer>> e : chosen.entrySet()) {
                int was = current.get(e.getKey()).get(0);
                if (leaderOf.containsKey(e.getKey()) || !e.getValue().contains(was)) {
                    continue;
                }
                if (extra ? leaderShares.mayTakeExtra(was) : leaderShares.underFloor(was)) {
                    leaderOf.put(e.getKey(), was);
                    leaderShares.add(was);
                }
            }
        }
        for (Map.Entry<TopicPartition, List<Integer>> e : chosen.entrySet()) {
            if (leaderOf.containsKey(e.getKey())) {
                continue;
            }
            int best = e.getValue().get(0);
            for (int b : e.getValue()) {
                if (leaderShares.count(b) < leaderShares.count(best)
                    || leaderShares.count(b) == leaderShares.count(best) && b < best) {
                    best = b;
                }
            }
            leaderOf.put(e.getKey(), best);
            leaderShares.add(best);
        }
        evenOut(chosen, leaderOf, leaderShares, brokers);
        Map<TopicPartition, List<Integer>> out = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, List<Integer>> e : chosen.entrySet()) {
            int leader = leaderOf.get(e.getKey());
            List<Integer> ordered = new ArrayList<>(e.getValue().size());
            ordered.add(leader);
            e.getValue().stream().filter(b -> b != leader).forEach(ordered::add);
            out.put(e.getKey(), List.copyOf(ordered));
        }
        return out;
    }

    /**
     * While some broker leads two or more partitions more than another that it can reach, shifts leaderships along
     * a chain: the fullest broker hands a partition to one of its replicas, which hands one of its own on, until a
     * broker with at least two fewer takes one (a breadth-first search over "leads a partition that has a replica
     * on"). Only the two ends change count, so each shift lowers the sum of squared counts and the loop ends.
     */
    private static void evenOut(Map<TopicPartition, List<Integer>> chosen, Map<TopicPartition, Integer> leaderOf,
                                Shares shares, List<Integer> brokers) {
        while (true) {
            int max = brokers.stream().mapToInt(shares::count).max().orElseThrow();
            boolean shifted = false;
            for (int start : brokers) {
                if (shares.count(start) == max && shiftFrom(start, max, chosen, leaderOf, shares)) {
                    shifted = true;
                    break;
                }
            }
            if (!shifted) {
                return;
            }
        }
    }

    private static boolean shiftFrom(int start, int max, Map<TopicPartition, List<Integer>> chosen,
                                     Map<TopicPartition, Integer> leaderOf, Shares shares) {
        Map<Integer, TopicPartition> reachedVia = new HashMap<>();
        java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>();
        queue.add(start);
        reachedVia.put(start, null);
        while (!queue.isEmpty()) {
            int at = queue.poll();
            for (Map.Entry<TopicPartition, List<Integer>> e : chosen.entrySet()) {
                if (leaderOf.get(e.getKey()) != at) {
                    continue;
                }
                for (int next : e.getValue()) {
                    if (reachedVia.containsKey(next)) {
                        continue;
                    }
                    reachedVia.put(next, e.getKey());
                    if (shares.count(next) <= max - 2) {
                        int b = next;
                        while (b != start) {
                            TopicPartition via = reachedVia.get(b);
                            int previous = leaderOf.get(via);
                            leaderOf.put(via, b);
                            b = previous;
                        }
                        shares.remove(start);
                        shares.add(next);
                        return true;
                    }
                    queue.add(next);
                }
            }
        }
        return false;
    }

    private static Set<String> racksOf(List<Integer> replicas, Map<Integer, String> rackOf) {
        return replicas.stream().map(rackOf::get).collect(Collectors.toSet());
    }

    private static String join(Iterable<Integer> ids) {
        List<String> out = new ArrayList<>();
        ids.forEach(id -> out.add(String.valueOf(id)));
        return String.join(",", out);
    }

    /** Counts per broker against a fair share of {@code total}: floor(total/B) each, N mod B brokers one more. */
    private static final class Shares {
        private final Map<Integer, Integer> counts = new HashMap<>();
        private final int floor;
        private final int extras;

        Shares(List<Integer> brokers, int total) {
            brokers.forEach(b -> counts.put(b, 0));
            this.floor = total / brokers.size();
            this.extras = total % brokers.size();
        }

        int count(int broker) {
            return counts.get(broker);
        }

        boolean underFloor(int broker) {
            return count(broker) < floor;
        }

        /** Whether {@code broker}, at its floor, may take one more: fewer than N mod B brokers are above the floor. */
        boolean mayTakeExtra(int broker) {
            if (count(broker) != floor) {
                return false;
            }
            return counts.values().stream().filter(c -> c > floor).count() < extras;
        }

        void add(int broker) {
            counts.merge(broker, 1, Integer::sum);
        }

        void remove(int broker) {
            counts.merge(broker, -1, Integer::sum);
        }
    }
}
