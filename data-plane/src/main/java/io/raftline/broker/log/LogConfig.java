package io.raftline.broker.log;

import io.raftline.common.config.ConfigException;
import io.raftline.common.config.TopicConfig;
import io.raftline.record.CompressionType;
import io.raftline.record.TimestampType;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A partition's log settings: immutable, validated once. Built from the broker's {@code log.*} defaults (Kafka's
 * key names) overridden by the topic's configs (Kafka's topic names). {@code compression.type} is checked and
 * reported but the broker never re-encodes, so stored batches keep the producer's codec.
 */
public final class LogConfig {

    public static final String RETENTION_MS = TopicConfig.RETENTION_MS;
    public static final String RETENTION_BYTES = TopicConfig.RETENTION_BYTES;
    public static final String CLEANUP_POLICY = TopicConfig.CLEANUP_POLICY;
    public static final String SEGMENT_BYTES = TopicConfig.SEGMENT_BYTES;
    public static final String SEGMENT_MS = TopicConfig.SEGMENT_MS;
    public static final String SEGMENT_INDEX_BYTES = TopicConfig.SEGMENT_INDEX_BYTES;
    public static final String INDEX_INTERVAL_BYTES = TopicConfig.INDEX_INTERVAL_BYTES;
    public static final String MAX_MESSAGE_BYTES = TopicConfig.MAX_MESSAGE_BYTES;
    public static final String DELETE_RETENTION_MS = TopicConfig.DELETE_RETENTION_MS;
    public static final String FLUSH_MESSAGES = TopicConfig.FLUSH_MESSAGES;
    public static final String FLUSH_MS = TopicConfig.FLUSH_MS;
    public static final String COMPRESSION_TYPE = TopicConfig.COMPRESSION_TYPE;
    public static final String MIN_INSYNC_REPLICAS = TopicConfig.MIN_INSYNC_REPLICAS;
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE;
    public static final String MESSAGE_TIMESTAMP_TYPE = TopicConfig.MESSAGE_TIMESTAMP_TYPE;
    public static final String FILE_DELETE_DELAY_MS = TopicConfig.FILE_DELETE_DELAY_MS;
    public static final String MIN_CLEANABLE_DIRTY_RATIO = TopicConfig.MIN_CLEANABLE_DIRTY_RATIO;

    /** Every topic-level config name this broker knows (to validate CreateTopics / AlterConfigs). */
    public static final Set<String> TOPIC_CONFIG_NAMES = TopicConfig.names();

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
        Map<String, Object> p = TopicConfig.parse(v);
        this.retentionMs = (Long) p.get(RETENTION_MS);
        this.retentionBytes = (Long) p.get(RETENTION_BYTES);
        List<?> policy = (List<?>) p.get(CLEANUP_POLICY);
        this.delete = policy.contains("delete");
        this.compact = policy.contains("compact");
        this.segmentBytes = (Integer) p.get(SEGMENT_BYTES);
        this.segmentMs = (Long) p.get(SEGMENT_MS);
        this.segmentIndexBytes = (Integer) p.get(SEGMENT_INDEX_BYTES);
        this.indexIntervalBytes = (Integer) p.get(INDEX_INTERVAL_BYTES);
        this.maxMessageBytes = (Integer) p.get(MAX_MESSAGE_BYTES);
        this.deleteRetentionMs = (Long) p.get(DELETE_RETENTION_MS);
        this.flushMessages = (Long) p.get(FLUSH_MESSAGES);
        this.flushMs = (Long) p.get(FLUSH_MS);
        this.compressionType = (String) p.get(COMPRESSION_TYPE);
        this.minInsyncReplicas = (Integer) p.get(MIN_INSYNC_REPLICAS);
        this.uncleanLeaderElectionEnable = (Boolean) p.get(UNCLEAN_LEADER_ELECTION_ENABLE);
        this.timestampType = p.get(MESSAGE_TIMESTAMP_TYPE).equals("LogAppendTime") ? TimestampType.LOG_APPEND_TIME
            : TimestampType.CREATE_TIME;
        this.fileDeleteDelayMs = (Long) p.get(FILE_DELETE_DELAY_MS);
        this.minCleanableDirtyRatio = (Double) p.get(MIN_CLEANABLE_DIRTY_RATIO);
    }

    /** The broker's defaults alone. */
    public static LogConfig fromBrokerProperties(Map<String, String> brokerProps) {
        return fromProperties(brokerProps, Map.of());
    }

    /**
     * The broker's {@code log.*} defaults (keys this class does not know are ignored: the broker config checks those)
     * overridden by topic configs (an unknown name is refused).
     *
     * @throws ConfigException "invalid value 'x' for config key 'retention.ms': ..." or "unknown topic config 'x'"
     */
    public static LogConfig fromProperties(Map<String, String> brokerDefaults, Map<String, String> topicOverrides) {
        Map<String, String> merged = new LinkedHashMap<>(topicDefaults(brokerDefaults));
        for (Map.Entry<String, String> e : topicOverrides.entrySet()) {
            TopicConfig.problem(e.getKey(), e.getValue()).ifPresent(problem -> {
                throw new ConfigException(problem);
            });
            merged.put(e.getKey(), e.getValue());
        }
        return new LogConfig(merged);
    }

    /** A copy with some topic configs changed (for AlterConfigs). */
    public LogConfig with(Map<String, String> topicOverrides) {
        Map<String, String> merged = new LinkedHashMap<>(values);
        for (Map.Entry<String, String> e : topicOverrides.entrySet()) {
            if (!TopicConfig.isKnown(e.getKey())) {
                throw new ConfigException("unknown topic config '" + e.getKey() + "'");
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
        for (Map.Entry<String, String> e : TopicConfig.BUILT_IN_DEFAULTS.entrySet()) {
            String brokerKey = TopicConfig.brokerKey(e.getKey());
            String brokerValue = brokerKey == null ? null : brokerProps.get(brokerKey);
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
        return TopicConfig.isKnown(topicConfig) ? TopicConfig.brokerKey(topicConfig) : null;
    }

    private static String scaled(Map<String, String> props, String key, long factor) {
        String raw = props.get(key).trim();
        try {
            long value = Long.parseLong(raw);
            return Long.toString(value < 0 ? -1 : Math.multiplyExact(value, factor));
        } catch (NumberFormatException | ArithmeticException e) {
            throw new ConfigException(key, raw, "expected a whole number");
        }
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
