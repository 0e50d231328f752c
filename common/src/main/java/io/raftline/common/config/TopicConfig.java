package io.raftline.common.config;

import static io.raftline.common.config.ConfigDef.Type.BOOLEAN;
import static io.raftline.common.config.ConfigDef.Type.DOUBLE;
import static io.raftline.common.config.ConfigDef.Type.INT;
import static io.raftline.common.config.ConfigDef.Type.LIST;
import static io.raftline.common.config.ConfigDef.Type.LONG;
import static io.raftline.common.config.ConfigDef.Type.STRING;
import static io.raftline.common.config.ConfigDef.all;
import static io.raftline.common.config.ConfigDef.atLeast;
import static io.raftline.common.config.ConfigDef.betweenDouble;
import static io.raftline.common.config.ConfigDef.eachOf;
import static io.raftline.common.config.ConfigDef.nonEmptyList;
import static io.raftline.common.config.ConfigDef.oneOf;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The topic-level configs (Kafka's names and built-in defaults), each with the broker key that sets its default for
 * every topic (none for the throttled replica lists, which only a topic has). The one definition both sides use:
 * the controller validates a CreateTopics or AlterConfigs value with
 * it, and a broker parses a partition's log settings with it, so a value the controller accepts is one every broker
 * can use.
 */
public final class TopicConfig {

    public static final String RETENTION_MS = "retention.ms";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String SEGMENT_MS = "segment.ms";
    public static final String SEGMENT_INDEX_BYTES = "segment.index.bytes";
    public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String DELETE_RETENTION_MS = "delete.retention.ms";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    public static final String COMPRESSION_TYPE = "compression.type";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
    public static final String FILE_DELETE_DELAY_MS = "file.delete.delay.ms";
    public static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
    public static final String LEADER_REPLICATION_THROTTLED_REPLICAS = "leader.replication.throttled.replicas";
    public static final String FOLLOWER_REPLICATION_THROTTLED_REPLICAS = "follower.replication.throttled.replicas";

    private static final Map<String, String> BROKER_KEYS = new LinkedHashMap<>();

    /** Every topic config: type, built-in default, validator, doc. */
    public static final ConfigDef DEF = new ConfigDef();

    static {
        define(RETENTION_MS, "log.retention.ms", LONG, 604_800_000L, atLeast(-1),
            "Delete a segment once its newest record is older than this (-1: keep forever).");
        define(RETENTION_BYTES, "log.retention.bytes", LONG, -1L, atLeast(-1),
            "Delete the oldest segments while the partition is larger than this (-1: no limit).");
        define(CLEANUP_POLICY, "log.cleanup.policy", LIST, "delete", all(nonEmptyList(), eachOf("delete", "compact")),
            "delete (by retention), compact (keep the last record per key), or both.");
        define(SEGMENT_BYTES, "log.segment.bytes", INT, 1_073_741_824, atLeast(14), "Roll a segment at this size.");
        define(SEGMENT_MS, "log.roll.ms", LONG, 604_800_000L, atLeast(1), "Roll a segment at this age.");
        define(SEGMENT_INDEX_BYTES, "log.index.size.max.bytes", INT, 10_485_760, atLeast(64),
            "Largest size of a segment's index file.");
        define(INDEX_INTERVAL_BYTES, "log.index.interval.bytes", INT, 4096, atLeast(0),
            "Bytes between entries of the sparse offset index.");
        define(MAX_MESSAGE_BYTES, "message.max.bytes", INT, 1_048_588, atLeast(0), "The largest record batch accepted.");
        define(DELETE_RETENTION_MS, "log.cleaner.delete.retention.ms", LONG, 86_400_000L, atLeast(0),
            "How long a compacted topic keeps tombstones.");
        define(FLUSH_MESSAGES, "log.flush.interval.messages", LONG, Long.MAX_VALUE, atLeast(1),
            "fsync after this many messages (1: before every acknowledgement).");
        define(FLUSH_MS, "log.flush.interval.ms", LONG, Long.MAX_VALUE, atLeast(0), "fsync at least this often.");
        define(COMPRESSION_TYPE, "compression.type", STRING, "producer",
            oneOf("producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"),
            "Compression of stored batches; producer keeps what the producer sent.");
        define(MIN_INSYNC_REPLICAS, "min.insync.replicas", INT, 1, atLeast(1),
            "With acks=all, a produce needs at least this many in-sync replicas.");
        define(UNCLEAN_LEADER_ELECTION_ENABLE, "unclean.leader.election.enable", BOOLEAN, false, null,
            "Elect a leader from outside the ISR when no ISR member is alive (may lose acknowledged records).");
        define(MESSAGE_TIMESTAMP_TYPE, "log.message.timestamp.type", STRING, "CreateTime",
            oneOf("CreateTime", "LogAppendTime"), "Keep the producer's timestamps or stamp the broker's time.");
        define(FILE_DELETE_DELAY_MS, "log.segment.delete.delay.ms", LONG, 60_000L, atLeast(0),
            "Delay before a deleted segment's files go.");
        define(MIN_CLEANABLE_DIRTY_RATIO, "log.cleaner.min.cleanable.ratio", DOUBLE, 0.5, betweenDouble(0, 1),
            "Compact a log once this share of it is not yet compacted.");
        define(LEADER_REPLICATION_THROTTLED_REPLICAS, null, LIST, "", ThrottledReplicas.validator(),
            "Replicas (partition:broker,... or *) whose leader sends to out-of-sync followers within the broker's "
                + "leader.replication.throttled.rate.");
        define(FOLLOWER_REPLICATION_THROTTLED_REPLICAS, null, LIST, "", ThrottledReplicas.validator(),
            "Replicas (partition:broker,... or *) that fetch, while out of sync, within their broker's "
                + "follower.replication.throttled.rate.");
    }

    /** The built-in default of every topic config, as text. */
    public static final Map<String, String> BUILT_IN_DEFAULTS;

    static {
        Map<String, String> d = new LinkedHashMap<>();
        DEF.keys().values().forEach(k -> d.put(k.name(), ConfigDef.render(k.defaultValue())));
        BUILT_IN_DEFAULTS = Collections.unmodifiableMap(d);
    }

    private TopicConfig() {
    }

    private static void define(String name, String brokerKey, ConfigDef.Type type, Object defaultValue,
                               ConfigDef.Validator validator, String doc) {
        DEF.define(name, type, defaultValue, validator, "topic", doc);
        BROKER_KEYS.put(name, brokerKey);
    }

    /** The topic config names, in definition order. */
    public static Set<String> names() {
        return DEF.names();
    }

    public static boolean isKnown(String name) {
        return BROKER_KEYS.containsKey(name);
    }

    /**
     * The broker key that sets a topic config's default (retention.ms → log.retention.ms); null for a topic config
     * no broker key sets (the throttled replica lists).
     */
    public static String brokerKey(String name) {
        if (!BROKER_KEYS.containsKey(name)) {
            throw new IllegalArgumentException("unknown topic config '" + name + "'");
        }
        return BROKER_KEYS.get(name);
    }

    /** The topic config a broker key sets the default of, if it is one. */
    public static Optional<String> topicNameOfBrokerKey(String brokerKey) {
        return BROKER_KEYS.entrySet().stream().filter(e -> brokerKey.equals(e.getValue())).map(Map.Entry::getKey)
            .findFirst();
    }

    /** Empty when {@code value} is acceptable for topic config {@code name}; else why not, in one line. */
    public static Optional<String> problem(String name, String value) {
        if (!isKnown(name)) {
            return Optional.of("unknown topic config '" + name + "'");
        }
        if (value == null) {
            return Optional.of("no value for topic config '" + name + "'");
        }
        try {
            DEF.parse(Map.of(name, value), ConfigDef.UnknownKeys.REFUSE);
            return Optional.empty();
        } catch (ConfigException e) {
            return Optional.of(e.getMessage());
        }
    }

    /**
     * Parses a complete set of topic configs (one value per name, e.g. the defaults with a topic's overrides).
     *
     * @throws ConfigException naming the first unknown key or bad value
     */
    public static Map<String, Object> parse(Map<String, String> values) {
        return DEF.parse(values, ConfigDef.UnknownKeys.REFUSE).values();
    }
}
