package io.raftline.cli.command;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@code topics create --replica-assignment 1:2:3,2:3:1}, as kafka-topics reads it: partitions separated by commas,
 * each partition's replicas (preferred leader first) by colons; partition {@code i} is the {@code i}-th group.
 * {@link #parse} is the command line's syntax (a failure is a usage error); {@link #check} is the meaning (a
 * failure is a refused value): distinct ids in a partition, every partition as long as the first, every broker
 * registered.
 */
public final class ReplicaAssignment {

    private ReplicaAssignment() {
    }

    /** The replica lists in partition order; throws IllegalArgumentException naming what does not parse. */
    public static List<List<Integer>> parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("--replica-assignment is empty");
        }
        List<List<Integer>> partitions = new ArrayList<>();
        for (String group : text.split(",", -1)) {
            List<Integer> replicas = new ArrayList<>();
            for (String id : group.split(":", -1)) {
                try {
                    replicas.add(Integer.parseInt(id.trim()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--replica-assignment: '" + id.trim() + "' in '" + group
                        + "' is not a broker id (expected e.g. 1:2:3,2:3:1)");
                }
            }
            partitions.add(List.copyOf(replicas));
        }
        return List.copyOf(partitions);
    }

    /** Why this assignment cannot be created on a cluster with these registered brokers, or empty when it can. */
    public static Optional<String> check(List<List<Integer>> partitions, Set<Integer> brokers) {
        int rf = partitions.get(0).size();
        for (int p = 0; p < partitions.size(); p++) {
            List<Integer> replicas = partitions.get(p);
            if (new HashSet<>(replicas).size() != replicas.size()) {
                return Optional.of("--replica-assignment: partition " + p + " lists a broker twice: " + join(replicas));
            }
            if (replicas.size() != rf) {
                return Optional.of("--replica-assignment: partition " + p + " has " + replicas.size()
                    + " replica(s) but partition 0 has " + rf + "; every partition needs the same number");
            }
            for (int id : replicas) {
                if (!brokers.contains(id)) {
                    return Optional.of("--replica-assignment: partition " + p + " names broker " + id
                        + ", which is not registered (brokers: "
                        + new TreeSet<>(brokers).stream().map(String::valueOf).collect(Collectors.joining(",")) + ")");
                }
            }
        }
        return Optional.empty();
    }

    /** Partition number to replicas, as {@code NewTopic} takes it. */
    public static Map<Integer, List<Integer>> byPartition(List<List<Integer>> partitions) {
        Map<Integer, List<Integer>> out = new LinkedHashMap<>();
        for (int p = 0; p < partitions.size(); p++) {
            out.put(p, partitions.get(p));
        }
        return out;
    }

    private static String join(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(":"));
    }
}
