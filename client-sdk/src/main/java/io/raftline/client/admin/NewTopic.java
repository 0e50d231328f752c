package io.raftline.client.admin;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A topic to create: a name and either a partition count and replication factor (each optional: empty means the
 * broker default) or an explicit replica assignment per partition; plus topic configs.
 */
public final class NewTopic {

    private final String name;
    private final Optional<Integer> numPartitions;
    private final Optional<Short> replicationFactor;
    private final Map<Integer, List<Integer>> replicasAssignments;
    private final Map<String, String> configs = new HashMap<>();

    /** A topic with this many partitions and replicas. */
    public NewTopic(String name, int numPartitions, short replicationFactor) {
        this(name, Optional.of(numPartitions), Optional.of(replicationFactor));
    }

    /** A topic whose partition count and replication factor may be left to the broker defaults. */
    public NewTopic(String name, Optional<Integer> numPartitions, Optional<Short> replicationFactor) {
        this.name = Objects.requireNonNull(name, "name");
        this.numPartitions = numPartitions;
        this.replicationFactor = replicationFactor;
        this.replicasAssignments = null;
    }

    /** A topic with an explicit assignment: partition number to its replicas' broker ids, preferred leader first. */
    public NewTopic(String name, Map<Integer, List<Integer>> replicasAssignments) {
        this.name = Objects.requireNonNull(name, "name");
        this.numPartitions = Optional.empty();
        this.replicationFactor = Optional.empty();
        this.replicasAssignments = Map.copyOf(replicasAssignments);
    }

    /** Sets topic configs ({@code retention.ms}, {@code cleanup.policy}, ...). */
    public NewTopic configs(Map<String, String> newConfigs) {
        configs.putAll(newConfigs);
        return this;
    }

    /** The topic name. */
    public String name() {
        return name;
    }

    /** The partition count, or -1 for the broker default (or an explicit assignment). */
    public int numPartitions() {
        return numPartitions.orElse(-1);
    }

    /** The replication factor, or -1 for the broker default (or an explicit assignment). */
    public short replicationFactor() {
        return replicationFactor.orElse((short) -1);
    }

    /** The explicit assignment, or null. */
    public Map<Integer, List<Integer>> replicasAssignments() {
        return replicasAssignments;
    }

    /** The topic configs. */
    public Map<String, String> configs() {
        return Map.copyOf(configs);
    }

    @Override
    public String toString() {
        return "NewTopic(" + name + ", partitions=" + numPartitions() + ", rf=" + replicationFactor() + ", configs=" + configs + ")";
    }
}
