package io.raftline.metadata.controller;

import java.util.Map;
import java.util.TreeMap;

/**
 * The controller's settings (Kafka's key names in the comments). Immutable; build with {@link #builder()}; the
 * server's config parser fills it from server.properties.
 *
 * <p>Liveness defaults: brokers heartbeat every 250 ms and are fenced after 1500 ms without one. Six missed
 * heartbeats in a row are needed before fencing, which absorbs a GC pause or scheduling stall of over a second on
 * a loaded 2-core machine, while a hard-killed broker is fenced 1.5 s after its last heartbeat plus at most one
 * periodic check (100 ms) and one Raft commit: its partitions move in well under 3 s. What keeps a live broker
 * from being fenced under load: a heartbeat counts when it arrives (not when the busy controller gets to it),
 * brokers send heartbeats at their interval even while earlier answers are late, and time the controller itself
 * spent stalled does not count against anyone's session (see BrokerControl#fenceExpired).
 */
public final class ControllerConfig {

    private final int numPartitions;
    private final short defaultReplicationFactor;
    private final int minInsyncReplicas;
    private final boolean uncleanLeaderElectionEnable;
    private final long brokerSessionTimeoutMs;
    private final long brokerHeartbeatIntervalMs;
    private final int offsetsTopicNumPartitions;
    private final short offsetsTopicReplicationFactor;
    private final boolean autoLeaderRebalanceEnable;
    private final int leaderImbalancePerBrokerPercentage;
    private final long leaderImbalanceCheckIntervalSeconds;
    private final int producerIdBlockSize;
    private final long periodicCheckIntervalMs;
    private final Map<String, String> topicConfigDefaults;

    private ControllerConfig(Builder b) {
        this.numPartitions = b.numPartitions;
        this.defaultReplicationFactor = b.defaultReplicationFactor;
        this.minInsyncReplicas = b.minInsyncReplicas;
        this.uncleanLeaderElectionEnable = b.uncleanLeaderElectionEnable;
        this.brokerSessionTimeoutMs = b.brokerSessionTimeoutMs;
        this.brokerHeartbeatIntervalMs = b.brokerHeartbeatIntervalMs;
        this.offsetsTopicNumPartitions = b.offsetsTopicNumPartitions;
        this.offsetsTopicReplicationFactor = b.offsetsTopicReplicationFactor;
        this.autoLeaderRebalanceEnable = b.autoLeaderRebalanceEnable;
        this.leaderImbalancePerBrokerPercentage = b.leaderImbalancePerBrokerPercentage;
        this.leaderImbalanceCheckIntervalSeconds = b.leaderImbalanceCheckIntervalSeconds;
        this.producerIdBlockSize = b.producerIdBlockSize;
        this.periodicCheckIntervalMs = b.periodicCheckIntervalMs;
        TreeMap<String, String> defaults = new TreeMap<>(TopicConfigs.BUILT_IN_DEFAULTS);
        defaults.putAll(b.topicConfigDefaults);
        defaults.put(TopicConfigs.MIN_INSYNC_REPLICAS, Integer.toString(minInsyncReplicas));
        defaults.put(TopicConfigs.UNCLEAN_LEADER_ELECTION_ENABLE, Boolean.toString(uncleanLeaderElectionEnable));
        this.topicConfigDefaults = Map.copyOf(defaults);
        validate();
    }

    private void validate() {
        require(numPartitions >= 1, "num.partitions must be at least 1");
        require(defaultReplicationFactor >= 1, "default.replication.factor must be at least 1");
        require(minInsyncReplicas >= 1, "min.insync.replicas must be at least 1");
        require(brokerHeartbeatIntervalMs >= 1, "broker.heartbeat.interval.ms must be positive");
        require(brokerSessionTimeoutMs > brokerHeartbeatIntervalMs,
            "broker.session.timeout.ms must be larger than broker.heartbeat.interval.ms");
        require(offsetsTopicNumPartitions >= 1, "offsets.topic.num.partitions must be at least 1");
        require(offsetsTopicReplicationFactor >= 1, "offsets.topic.replication.factor must be at least 1");
        require(leaderImbalancePerBrokerPercentage >= 0, "leader.imbalance.per.broker.percentage must be >= 0");
        require(leaderImbalanceCheckIntervalSeconds >= 1, "leader.imbalance.check.interval.seconds must be >= 1");
        require(producerIdBlockSize >= 1, "producer id block size must be positive");
        topicConfigDefaults.forEach((k, v) -> TopicConfigs.validate(k, v).ifPresent(err -> {
            throw new IllegalArgumentException("default for topic config " + k + ": " + err);
        }));
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public static ControllerConfig defaults() {
        return builder().build();
    }

    /** num.partitions (1). */
    public int numPartitions() {
        return numPartitions;
    }

    /** default.replication.factor (1). */
    public short defaultReplicationFactor() {
        return defaultReplicationFactor;
    }

    /** min.insync.replicas (1). */
    public int minInsyncReplicas() {
        return minInsyncReplicas;
    }

    /** unclean.leader.election.enable (false). */
    public boolean uncleanLeaderElectionEnable() {
        return uncleanLeaderElectionEnable;
    }

    /** broker.session.timeout.ms (1500). */
    public long brokerSessionTimeoutMs() {
        return brokerSessionTimeoutMs;
    }

    /** broker.heartbeat.interval.ms (250). */
    public long brokerHeartbeatIntervalMs() {
        return brokerHeartbeatIntervalMs;
    }

    /** offsets.topic.num.partitions (50). */
    public int offsetsTopicNumPartitions() {
        return offsetsTopicNumPartitions;
    }

    /** offsets.topic.replication.factor (3). */
    public short offsetsTopicReplicationFactor() {
        return offsetsTopicReplicationFactor;
    }

    /** auto.leader.rebalance.enable (true). */
    public boolean autoLeaderRebalanceEnable() {
        return autoLeaderRebalanceEnable;
    }

    /** leader.imbalance.per.broker.percentage (10). */
    public int leaderImbalancePerBrokerPercentage() {
        return leaderImbalancePerBrokerPercentage;
    }

    /** leader.imbalance.check.interval.seconds (300). */
    public long leaderImbalanceCheckIntervalSeconds() {
        return leaderImbalanceCheckIntervalSeconds;
    }

    /** How many producer ids one AllocateProducerIds hands out (1000). */
    public int producerIdBlockSize() {
        return producerIdBlockSize;
    }

    /** How often the active controller checks sessions, offline partitions and reassignments (100 ms). */
    public long periodicCheckIntervalMs() {
        return periodicCheckIntervalMs;
    }

    /**
     * The broker-level default of every topic config, by topic config name (retention.ms, cleanup.policy, ...):
     * what a topic without an override gets, and what describe shows as source "default".
     */
    public Map<String, String> topicConfigDefaults() {
        return topicConfigDefaults;
    }

    /** Fluent builder; every setter has the default noted on the getter. */
    public static final class Builder {
        private int numPartitions = 1;
        private short defaultReplicationFactor = 1;
        private int minInsyncReplicas = 1;
        private boolean uncleanLeaderElectionEnable;
        private long brokerSessionTimeoutMs = 1500;
        private long brokerHeartbeatIntervalMs = 250;
        private int offsetsTopicNumPartitions = 50;
        private short offsetsTopicReplicationFactor = 3;
        private boolean autoLeaderRebalanceEnable = true;
        private int leaderImbalancePerBrokerPercentage = 10;
        private long leaderImbalanceCheckIntervalSeconds = 300;
        private int producerIdBlockSize = 1000;
        private long periodicCheckIntervalMs = 100;
        private final Map<String, String> topicConfigDefaults = new TreeMap<>();

        private Builder() {
        }

        public Builder numPartitions(int v) {
            numPartitions = v;
            return this;
        }

        public Builder defaultReplicationFactor(short v) {
            defaultReplicationFactor = v;
            return this;
        }

        public Builder minInsyncReplicas(int v) {
            minInsyncReplicas = v;
            return this;
        }

        public Builder uncleanLeaderElectionEnable(boolean v) {
            uncleanLeaderElectionEnable = v;
            return this;
        }

        public Builder brokerSessionTimeoutMs(long v) {
            brokerSessionTimeoutMs = v;
            return this;
        }

        public Builder brokerHeartbeatIntervalMs(long v) {
            brokerHeartbeatIntervalMs = v;
            return this;
        }

        public Builder offsetsTopicNumPartitions(int v) {
            offsetsTopicNumPartitions = v;
            return this;
        }

        public Builder offsetsTopicReplicationFactor(short v) {
            offsetsTopicReplicationFactor = v;
            return this;
        }

        public Builder autoLeaderRebalanceEnable(boolean v) {
            autoLeaderRebalanceEnable = v;
            return this;
        }

        public Builder leaderImbalancePerBrokerPercentage(int v) {
            leaderImbalancePerBrokerPercentage = v;
            return this;
        }

        public Builder leaderImbalanceCheckIntervalSeconds(long v) {
            leaderImbalanceCheckIntervalSeconds = v;
            return this;
        }

        public Builder producerIdBlockSize(int v) {
            producerIdBlockSize = v;
            return this;
        }

        public Builder periodicCheckIntervalMs(long v) {
            periodicCheckIntervalMs = v;
            return this;
        }

        /**
         * The broker default of one topic config, by its topic-level name (e.g. "retention.ms" for
         * log.retention.ms); min.insync.replicas and unclean.leader.election.enable come from their own setters.
         */
        public Builder topicConfigDefault(String topicConfigName, String value) {
            if (!TopicConfigs.isKnown(topicConfigName)) {
                throw new IllegalArgumentException("unknown topic config " + topicConfigName);
            }
            topicConfigDefaults.put(topicConfigName, value);
            return this;
        }

        public ControllerConfig build() {
            return new ControllerConfig(this);
        }
    }
}
