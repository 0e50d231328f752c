package io.raftline.broker.log;

import io.raftline.record.CompressionType;
import io.raftline.record.TimestampType;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A partition's log settings: immutable, validated once. Built from the broker's {@code log.*} defaults (Kafka's
 * key names) overridden by the topic's configs (Kafka's topic names). {@code compression.type} is checked and
 * reported but the broker never re-encodes, so stored batches keep the producer's codec.
 */
public final class LogConfig {

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

    /** Topic config name → the broker key that sets its default (Kafka's names). */
    private static final Map<String, String> BROKER_KEYS = new LinkedHashMap<>();
    /** Topic config name → built-in default (Kafka's defaults). */
    private static final Map<String, String> BUILT_IN = new LinkedHashMap<>();

    static {
        define(RETENTION_MS, "log.retention.ms", "604800000");
        define(RETENTION_BYTES, "log.retention.bytes", "-1");
        define(CLEANUP_POLICY, "log.cleanup.policy", "delete");
        define(SEGMENT_BYTES, "log.segment.bytes", "1073741824");
        define(SEGMENT_MS, "log.roll.ms", "604800000");
        define(SEGMENT_INDEX_BYTES, "log.index.size.max.bytes", "10485760");
        define(INDEX_INTERVAL_BYTES, "log.index.interval.bytes", "4096");
        define(MAX_MESSAGE_BYTES, "message.max.bytes", "1048588");
        define(DELETE_RETENTION_MS, "log.cleaner.delete.retention.ms", "86400000");
        define(FLUSH_MESSAGES, "log.flush.interval.messages", Long.toString(Long.MAX_VALUE));
        define(FLUSH_MS, "log.flush.interval.ms", Long.toString(Long.MAX_VALUE));
        define(COMPRESSION_TYPE, "compression.type", "producer");
        define(MIN_INSYNC_REPLICAS, "min.insync.replicas", "1");
        define(UNCLEAN_LEADER_ELECTION_ENABLE, "unclean.leader.election.enable", "false");
        define(MESSAGE_TIMESTAMP_TYPE, "log.message.timestamp.type", "CreateTime");
        define(FILE_DELETE_DELAY_MS, "log.segment.delete.delay.ms", "60000");
        define(MIN_CLEANABLE_DIRTY_RATIO, "log.cleaner.min.cleanable.ratio", "0.5");
    }

    /** Every topic-level config name this broker knows (to validate CreateTopics / AlterConfigs). */
    public static final Set<String> TOPIC_CONFIG_NAMES = Collections.unmodifiableSet(new LinkedHashSet<>(BUILT_IN.keySet()));

    private static final Set<String> COMPRESSION_NAMES = Set.of("producer", "uncompressed", "none", "gzip", "snappy", "lz4", "zstd");

    private final Map<String, String> values;
    private final long retentionMs;
    private final long retentionBytes;
    private final boolean delete;
    private final boolean compact;
    private final int segmentBytes;
    private final long segmentMs;
    private final int segmentIndexBytes;
    private final int indexIntervalBytes;
    private final int maxMessageBytes;
    private final long deleteRetentionMs;
    private final long flushMessages;
    private final long flushMs;
    private final String compressionType;
    private final int minInsyncReplicas;
    private final boolean uncleanLeaderElectionEnable;
    private final TimestampType timestampType;
    private final long fileDeleteDelayMs;
    private final double minCleanableDirtyRatio;

    private LogConfig(Map<String, String> v) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(v));
        this.retentionMs = parseLong(v, RETENTION_MS, -1);
        this.retentionBytes = parseLong(v, RETENTION_BYTES, -1);
        Set<String> policy = parsePolicy(v.get(CLEANUP_POLICY));
        this.delete = policy.contains("delete");
        this.compact = policy.contains("compact");
        this.segmentBytes = parseInt(v, SEGMENT_BYTES, 128);
        this.segmentMs = parseLong(v, SEGMENT_MS, 1);
        this.segmentIndexBytes = parseInt(v, SEGMENT_INDEX_BYTES, 64);
        this.indexIntervalBytes = parseInt(v, INDEX_INTERVAL_BYTES, 0);
        this.maxMessageBytes = parseInt(v, MAX_MESSAGE_BYTES, 0);
        this.deleteRetentionMs = parseLong(v, DELETE_RETENTION_MS, 0);
        this.flushMessages = parseLong(v, FLUSH_MESSAGES, 1);
        this.flushMs = parseLong(v, FLUSH_MS, 0);
        String compression = v.get(COMPRESSION_TYPE).trim().toLowerCase(Locale.ROOT);
        if (!COMPRESSION_NAMES.contains(compression)) {
            throw invalid(COMPRESSION_TYPE, v.get(COMPRESSION_TYPE), "one of producer, uncompressed, gzip, snappy, lz4, zstd");
        }
        this.compressionType = compression;
        this.minInsyncReplicas = parseInt(v, MIN_INSYNC_REPLICAS, 1);
        this.uncleanLeaderElectionEnable = parseBoolean(v, UNCLEAN_LEADER_ELECTION_ENABLE);
        String ts = v.get(MESSAGE_TIMESTAMP_TYPE).trim();
        if (ts.equals("CreateTime")) {
            this.timestampType = TimestampType.CREATE_TIME;
        } else if (ts.equals("LogAppendTime")) {
            this.timestampType = TimestampType.LOG_APPEND_TIME;
        } else {
            throw invalid(MESSAGE_TIMESTAMP_TYPE, ts, "CreateTime or LogAppendTime");
        }
        this.fileDeleteDelayMs = parseLong(v, FILE_DELETE_DELAY_MS, 0);
        try {
            this.minCleanableDirtyRatio = Double.parseDouble(v.get(MIN_CLEANABLE_DIRTY_RATIO).trim());
        } catch (NumberFormatException e) {
            throw invalid(MIN_CLEANABLE_DIRTY_RATIO, v.get(MIN_CLEANABLE_DIRTY_RATIO), "a number between 0 and 1");
        }
        if (!(minCleanableDirtyRatio >= 0 && minCleanableDirtyRatio <= 1)) {
            throw invalid(MIN_CLEANABLE_DIRTY_RATIO, v.get(MIN_CLEANABLE_DIRTY_RATIO), "a number between 0 and 1");
        }
    }

    private static void define(String topicName, String brokerKey, String builtIn) {
        BROKER_KEYS.put(topicName, brokerKey);
        BUILT_IN.put(topicName, builtIn);
    }

    /** The broker's defaults alone. */
    public static LogConfig fromBrokerProperties(Map<String, String> brokerProps) {
        return fromProperties(brokerProps, Map.of());
    }

    /**
     * The broker's {@code log.*} defaults (keys this class does not know are ignored: the broker config checks those)
     * overridden by topic configs (an unknown name is refused).
     *
     * @throws IllegalArgumentException "invalid value for retention.ms: ..." or "unknown topic config: x"
     */
    public static LogConfig fromProperties(Map<String, String> brokerDefaults, Map<String, String> topicOverrides) {
        Map<String, String> merged = new LinkedHashMap<>(topicDefaults(brokerDefaults));
        for (Map.Entry<String, String> e : topicOverrides.entrySet()) {
            if (!TOPIC_CONFIG_NAMES.contains(e.getKey())) {
                throw new IllegalArgumentException("unknown topic config: " + e.getKey()
                    + " (known: " + String.join(", ", TOPIC_CONFIG_NAMES) + ")");
            }
            if (e.getValue() == null) {
                throw invalid(e.getKey(), null, "a value");
            }
            merged.put(e.getKey(), e.getValue());
        }
        return new LogConfig(merged);
    }

    /** A copy with some topic configs changed (for AlterConfigs). */
    public LogConfig with(Map<String, String> topicOverrides) {
        Map<String, String> merged = new LinkedHashMap<>(values);
        for (Map.Entry<String, String> e : topicOverrides.entrySet()) {
            if (!TOPIC_CONFIG_NAMES.contains(e.getKey())) {
                throw new IllegalArgumentException("unknown topic config: " + e.getKey());
            }
            merged.put(e.getKey(), e.getValue());
        }
        return new LogConfig(merged);
    }

    /**
     * The default of every topic config as the broker properties set it (for DescribeConfigs' "default"/"broker"
     * values). Handles Kafka's hour/minute variants: log.retention.ms > .minutes > .hours; log.roll.ms > .hours.
     *
     * @throws IllegalArgumentException if one of those broker values is not a number
     */
    public static Map<String, String> topicDefaults(Map<String, String> brokerProps) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : BUILT_IN.entrySet()) {
            String brokerValue = brokerProps.get(BROKER_KEYS.get(e.getKey()));
            out.put(e.getKey(), brokerValue != null ? brokerValue.trim() : e.getValue());
        }
        if (!brokerProps.containsKey("log.retention.ms")) {
            if (brokerProps.containsKey("log.retention.minutes")) {
                out.put(RETENTION_MS, scaled(brokerProps, "log.retention.minutes", 60_000L));
            } else if (brokerProps.containsKey("log.retention.hours")) {
                out.put(RETENTION_MS, scaled(brokerProps, "log.retention.hours", 3_600_000L));
            }
        }
        if (!brokerProps.containsKey("log.roll.ms") && brokerProps.containsKey("log.roll.hours")) {
            out.put(SEGMENT_MS, scaled(brokerProps, "log.roll.hours", 3_600_000L));
        }
        return out;
    }

    /** Which broker key sets a topic config's default (e.g. retention.ms → log.retention.ms). */
    public static String brokerKeyFor(String topicConfig) {
        return BROKER_KEYS.get(topicConfig);
    }

    private static String scaled(Map<String, String> props, String key, long factor) {
        String raw = props.get(key).trim();
        try {
            long value = Long.parseLong(raw);
            return Long.toString(value < 0 ? -1 : Math.multiplyExact(value, factor));
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("invalid value for " + key + ": '" + raw + "' (expected a whole number)");
        }
    }

    private static long parseLong(Map<String, String> v, String key, long min) {
        String raw = v.get(key).trim();
        long value;
        try {
            value = Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw invalid(key, raw, "a whole number >= " + min);
        }
        if (value < min) {
            throw invalid(key, raw, "a whole number >= " + min);
        }
        return value;
    }

    private static int parseInt(Map<String, String> v, String key, int min) {
        long value = parseLong(v, key, min);
        if (value > Integer.MAX_VALUE) {
            throw invalid(key, v.get(key), "at most " + Integer.MAX_VALUE);
        }
        return (int) value;
    }

    private static boolean parseBoolean(Map<String, String> v, String key) {
        String raw = v.get(key).trim().toLowerCase(Locale.ROOT);
        if (raw.equals("true") || raw.equals("false")) {
            return Boolean.parseBoolean(raw);
        }
        throw invalid(key, raw, "true or false");
    }

    private static Set<String> parsePolicy(String raw) {
        Set<String> out = new LinkedHashSet<>();
        for (String part : raw.split(",")) {
            String p = part.trim().toLowerCase(Locale.ROOT);
            if (!p.equals("delete") && !p.equals("compact")) {
                throw invalid(CLEANUP_POLICY, raw, "delete, compact or compact,delete");
            }
            out.add(p);
        }
        return out;
    }

    private static IllegalArgumentException invalid(String key, String raw, String expected) {
        return new IllegalArgumentException("invalid value for " + key + ": '" + raw + "' (expected " + expected + ")");
    }

    /** The effective value of every topic config, as strings (for DescribeConfigs). */
    public Map<String, String> values() {
        return values;
    }

    /** -1 = keep forever. */
    public long retentionMs() {
        return retentionMs;
    }

    /** -1 = no size limit. */
    public long retentionBytes() {
        return retentionBytes;
    }

    public boolean deleteEnabled() {
        return delete;
    }

    public boolean compact() {
        return compact;
    }

    public String cleanupPolicy() {
        return values.get(CLEANUP_POLICY);
    }

    public int segmentBytes() {
        return segmentBytes;
    }

    public long segmentMs() {
        return segmentMs;
    }

    public int segmentIndexBytes() {
        return segmentIndexBytes;
    }

    public int indexIntervalBytes() {
        return indexIntervalBytes;
    }

    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    public long deleteRetentionMs() {
        return deleteRetentionMs;
    }

    public long flushMessages() {
        return flushMessages;
    }

    public long flushMs() {
        return flushMs;
    }

    /** "producer", "uncompressed" or a codec name. */
    public String compressionType() {
        return compressionType;
    }

    /** The codec the topic asks for, or null for "producer" (keep what the producer used). */
    public CompressionType compressionCodec() {
        switch (compressionType) {
            case "producer":
                return null;
            case "uncompressed":
                return CompressionType.NONE;
            default:
                return CompressionType.forName(compressionType);
        }
    }

    public int minInsyncReplicas() {
        return minInsyncReplicas;
    }

    public boolean uncleanLeaderElectionEnable() {
        return uncleanLeaderElectionEnable;
    }

    public TimestampType timestampType() {
        return timestampType;
    }

    public long fileDeleteDelayMs() {
        return fileDeleteDelayMs;
    }

    public double minCleanableDirtyRatio() {
        return minCleanableDirtyRatio;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LogConfig && ((LogConfig) o).values.equals(values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "LogConfig" + values;
    }
}
