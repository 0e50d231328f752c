package io.raftline.metadata.controller;

import io.raftline.metadata.image.BrokerRegistration;
import io.raftline.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Chooses replicas for new partitions, greedily and deterministically, so that across the whole cluster every
 * broker holds about the same number of replicas and is the preferred leader of about the same number of
 * partitions, and each partition's replicas span as many racks as possible.
 *
 * <p>For each new partition: the preferred leader is the usable broker that is preferred leader of the fewest
 * partitions (ties: fewest replicas, then lowest id); each further replica is the usable broker not yet chosen
 * whose rack is least used by this partition (a broker without {@code broker.rack} counts as its own rack), then
 * with the fewest replicas, then the lowest id. Counts include the partitions placed earlier in the same call.
 */
public final class ReplicaPlacer {

    private final List<BrokerRegistration> usable;
    private final Map<Integer, Integer> replicaCounts = new HashMap<>();
    private final Map<Integer, Integer> leaderCounts = new HashMap<>();

    /** A placer over the active brokers of {@code image}, starting from the load the image counts for them. */
    public ReplicaPlacer(MetadataImage image) {
        this.usable = image.brokers().values().stream().filter(BrokerRegistration::active).toList();
        for (BrokerRegistration b : usable) {
            MetadataImage.BrokerLoad load = image.brokerLoads().getOrDefault(b.id(), MetadataImage.BrokerLoad.NONE);
            replicaCounts.put(b.id(), load.replicas());
            leaderCounts.put(b.id(), load.preferredLeaders());
        }
    }

    public int usableBrokers() {
        return usable.size();
    }

    /** Replica lists (preferred leader first) for {@code count} new partitions; requires rf <= usableBrokers(). */
    public List<List<Integer>> place(int count, int replicationFactor) {
        if (replicationFactor > usable.size() || replicationFactor < 1) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " with " + usable.size()
                + " usable brokers");
        }
        List<List<Integer>> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(placeOne(replicationFactor));
        }
        return out;
    }

    private List<Integer> placeOne(int rf) {
        List<Integer> chosen = new ArrayList<>(rf);
        Map<String, Integer> racksUsed = new HashMap<>();
        Set<Integer> taken = new HashSet<>();
        BrokerRegistration leader = null;
        for (BrokerRegistration b : usable) {
            if (leader == null || compareLeader(b, leader) < 0) {
                leader = b;
            }
        }
        take(leader, chosen, taken, racksUsed);
        leaderCounts.merge(leader.id(), 1, Integer::sum);
        while (chosen.size() < rf) {
            BrokerRegistration best = null;
            for (BrokerRegistration b : usable) {
                if (taken.contains(b.id())) {
                    continue;
                }
                if (best == null || compareFollower(b, best, racksUsed) < 0) {
                    best = b;
                }
            }
            take(best, chosen, taken, racksUsed);
        }
        return chosen;
    }

    private void take(BrokerRegistration b, List<Integer> chosen, Set<Integer> taken, Map<String, Integer> racksUsed) {
        chosen.add(b.id());
        taken.add(b.id());
        racksUsed.merge(rackKey(b), 1, Integer::sum);
        replicaCounts.merge(b.id(), 1, Integer::sum);
    }

    private int compareLeader(BrokerRegistration a, BrokerRegistration b) {
        int c = Integer.compare(leaderCounts.get(a.id()), leaderCounts.get(b.id()));
        if (c != 0) {
            return c;
        }
        c = Integer.compare(replicaCounts.get(a.id()), replicaCounts.get(b.id()));
        return c != 0 ? c : Integer.compare(a.id(), b.id());
    }

    private int compareFollower(BrokerRegistration a, BrokerRegistration b, Map<String, Integer> racksUsed) {
        int c = Integer.compare(racksUsed.getOrDefault(rackKey(a), 0), racksUsed.getOrDefault(rackKey(b), 0));
        if (c != 0) {
            return c;
        }
        c = Integer.compare(replicaCounts.get(a.id()), replicaCounts.get(b.id()));
        return c != 0 ? c : Integer.compare(a.id(), b.id());
    }

    private static String rackKey(BrokerRegistration b) {
        return b.rack().isEmpty() ? "\u0000broker-" + b.id() : b.rack();
    }
}
