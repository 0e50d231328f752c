package io.raftline.metadata.controller;

import io.raftline.metadata.image.ConfigResource;
import io.raftline.metadata.image.MetadataImage;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The topic configs Raftline knows (Kafka's names), their types and ranges, their built-in defaults, and the
 * broker-level key each one overrides. A topic's effective value: its own override, else the cluster-wide dynamic
 * broker default (resource BROKER ""), else the static default from {@link ControllerConfig}.
 */
public final class TopicConfigs {

    public static final String RETENTION_MS = "retention.ms";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String SEGMENT_MS = "segment.ms";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String DELETE_RETENTION_MS = "delete.retention.ms";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    public static final String COMPRESSION_TYPE = "compression.type";

    private enum Type { LONG, INT, BOOLEAN, CLEANUP, COMPRESSION }

    private record Def(Type type, long min, String brokerKey, String defaultValue) {
    }

    private static final Map<String, Def> DEFS = new LinkedHashMap<>();

    static {
        DEFS.put(RETENTION_MS, new Def(Type.LONG, -1, "log.retention.ms", "604800000"));
        DEFS.put(RETENTION_BYTES, new Def(Type.LONG, -1, "log.retention.bytes", "-1"));
        DEFS.put(CLEANUP_POLICY, new Def(Type.CLEANUP, 0, "log.cleanup.policy", "delete"));
        DEFS.put(SEGMENT_BYTES, new Def(Type.INT, 14, "log.segment.bytes", "1073741824"));
        DEFS.put(SEGMENT_MS, new Def(Type.LONG, 1, "log.roll.ms", "604800000"));
        DEFS.put(MIN_INSYNC_REPLICAS, new Def(Type.INT, 1, "min.insync.replicas", "1"));
        DEFS.put(UNCLEAN_LEADER_ELECTION_ENABLE, new Def(Type.BOOLEAN, 0, "unclean.leader.election.enable", "false"));
        DEFS.put(MAX_MESSAGE_BYTES, new Def(Type.INT, 0, "message.max.bytes", "1048588"));
        DEFS.put(DELETE_RETENTION_MS, new Def(Type.LONG, 0, "log.cleaner.delete.retention.ms", "86400000"));
        DEFS.put(FLUSH_MESSAGES, new Def(Type.LONG, 1, "log.flush.interval.messages", Long.toString(Long.MAX_VALUE)));
        DEFS.put(FLUSH_MS, new Def(Type.LONG, 0, "log.flush.interval.ms", Long.toString(Long.MAX_VALUE)));
        DEFS.put(COMPRESSION_TYPE, new Def(Type.COMPRESSION, 0, "compression.type", "producer"));
    }

    /** Kafka's defaults for every known topic config. */
    public static final Map<String, String> BUILT_IN_DEFAULTS;

    static {
        Map<String, String> d = new LinkedHashMap<>();
        DEFS.forEach((k, v) -> d.put(k, v.defaultValue()));
        BUILT_IN_DEFAULTS = Map.copyOf(d);
    }

    private static final Set<String> COMPRESSION_TYPES = Set.of("uncompressed", "producer", "gzip", "snappy", "lz4", "zstd");
    private static final Set<String> CLEANUP_POLICIES = Set.of("delete", "compact", "compact,delete", "delete,compact");

    private TopicConfigs() {
    }

    public static Set<String> names() {
        return DEFS.keySet();
    }

    public static boolean isKnown(String name) {
        return DEFS.containsKey(name);
    }

    /** The broker-level key a topic config overrides (e.g. retention.ms -> log.retention.ms). */
    public static String brokerKey(String topicConfigName) {
        Def d = DEFS.get(topicConfigName);
        if (d == null) {
            throw new IllegalArgumentException("unknown topic config " + topicConfigName);
        }
        return d.brokerKey();
    }

    /** The topic config a broker-level key sets the default of, if it is one. */
    public static Optional<String> topicNameOfBrokerKey(String brokerKey) {
        return DEFS.entrySet().stream().filter(e -> e.getValue().brokerKey().equals(brokerKey)).map(Map.Entry::getKey)
            .findFirst();
    }

    /** Empty when {@code value} is acceptable for topic config {@code name}; else why not, in one sentence. */
    public static Optional<String> validate(String name, String value) {
        Def d = DEFS.get(name);
        if (d == null) {
            return Optional.of("unknown topic config '" + name + "'");
        }
        if (value == null) {
            return Optional.of("no value for '" + name + "'");
        }
        String v = value.trim();
        switch (d.type()) {
            case LONG, INT -> {
                long n;
                try {
                    n = d.type() == Type.INT ? Integer.parseInt(v) : Long.parseLong(v);
                } catch (NumberFormatException e) {
                    return Optional.of("'" + name + "' must be " + (d.type() == Type.INT ? "an int" : "a long") + ", got '"
                        + value + "'");
                }
                if (n < d.min()) {
                    return Optional.of("'" + name + "' must be at least " + d.min() + ", got " + n);
                }
                return Optional.empty();
            }
            case BOOLEAN -> {
                return v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false") ? Optional.empty()
                    : Optional.of("'" + name + "' must be true or false, got '" + value + "'");
            }
            case CLEANUP -> {
                return CLEANUP_POLICIES.contains(v.replace(" ", "")) ? Optional.empty()
                    : Optional.of("'" + name + "' must be delete, compact or compact,delete, got '" + value + "'");
            }
            case COMPRESSION -> {
                return COMPRESSION_TYPES.contains(v) ? Optional.empty()
                    : Optional.of("'" + name + "' must be one of " + COMPRESSION_TYPES + ", got '" + value + "'");
            }
            default -> throw new IllegalStateException("unhandled type " + d.type());
        }
    }

    /** A topic's effective value of a known config (override, dynamic cluster default, static default). */
    public static String effective(MetadataImage image, ControllerConfig config, String topic, String name) {
        String own = image.configs(ConfigResource.topic(topic)).get(name);
        if (own != null) {
            return own;
        }
        String cluster = image.configs(ConfigResource.broker("")).get(brokerKey(name));
        if (cluster != null) {
            return cluster;
        }
        return config.topicConfigDefaults().get(name);
    }

    public static int minInsyncReplicas(MetadataImage image, ControllerConfig config, String topic) {
        return Integer.parseInt(effective(image, config, topic, MIN_INSYNC_REPLICAS).trim());
    }

    public static boolean uncleanElection(MetadataImage image, ControllerConfig config, String topic) {
        return Boolean.parseBoolean(effective(image, config, topic, UNCLEAN_LEADER_ELECTION_ENABLE).trim());
    }
}
