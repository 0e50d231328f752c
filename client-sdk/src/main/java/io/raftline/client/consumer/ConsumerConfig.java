package io.raftline.client.consumer;

import io.raftline.client.common.config.AbstractConfig;
import io.raftline.client.common.config.CommonClientConfigs;
import io.raftline.common.config.ConfigDef;
import io.raftline.common.config.ConfigDef.Type;
import java.util.Map;
import java.util.Properties;

/**
 * The consumer's configuration: Kafka's key names and Kafka 4's defaults ({@code auto.offset.reset=latest},
 * {@code max.poll.records=500}, {@code fetch.min.bytes=1}, {@code fetch.max.wait.ms=500},
 * {@code max.partition.fetch.bytes=1048576}, {@code fetch.max.bytes=52428800}, {@code check.crcs=true},
 * {@code default.api.timeout.ms=60000}). The group keys are accepted now and used once group membership exists.
 * An unknown key or bad value fails construction with one message naming the key.
 */
public final class ConsumerConfig extends AbstractConfig {

    public static final String BOOTSTRAP_SERVERS_CONFIG = CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG;
    public static final String CLIENT_ID_CONFIG = CommonClientConfigs.CLIENT_ID_CONFIG;
    public static final String KEY_DESERIALIZER_CLASS_CONFIG = "key.deserializer";
    public static final String VALUE_DESERIALIZER_CLASS_CONFIG = "value.deserializer";
    public static final String GROUP_ID_CONFIG = "group.id";
    public static final String GROUP_INSTANCE_ID_CONFIG = "group.instance.id";
    public static final String ENABLE_AUTO_COMMIT_CONFIG = "enable.auto.commit";
    public static final String AUTO_COMMIT_INTERVAL_MS_CONFIG = "auto.commit.interval.ms";
    public static final String SESSION_TIMEOUT_MS_CONFIG = "session.timeout.ms";
    public static final String HEARTBEAT_INTERVAL_MS_CONFIG = "heartbeat.interval.ms";
    public static final String MAX_POLL_INTERVAL_MS_CONFIG = "max.poll.interval.ms";
    public static final String PARTITION_ASSIGNMENT_STRATEGY_CONFIG = "partition.assignment.strategy";
    public static final String AUTO_OFFSET_RESET_CONFIG = "auto.offset.reset";
    public static final String MAX_POLL_RECORDS_CONFIG = "max.poll.records";
    public static final String FETCH_MIN_BYTES_CONFIG = "fetch.min.bytes";
    public static final String FETCH_MAX_WAIT_MS_CONFIG = "fetch.max.wait.ms";
    public static final String MAX_PARTITION_FETCH_BYTES_CONFIG = "max.partition.fetch.bytes";
    public static final String FETCH_MAX_BYTES_CONFIG = "fetch.max.bytes";
    public static final String CHECK_CRCS_CONFIG = "check.crcs";
    public static final String DEFAULT_API_TIMEOUT_MS_CONFIG = CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG;
    public static final String REQUEST_TIMEOUT_MS_CONFIG = CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG;
    public static final String RETRY_BACKOFF_MS_CONFIG = CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG;
    public static final String RECONNECT_BACKOFF_MS_CONFIG = CommonClientConfigs.RECONNECT_BACKOFF_MS_CONFIG;
    public static final String RECONNECT_BACKOFF_MAX_MS_CONFIG = CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG;
    public static final String INTERCEPTOR_CLASSES_CONFIG = CommonClientConfigs.INTERCEPTOR_CLASSES_CONFIG;
    public static final String ISOLATION_LEVEL_CONFIG = "isolation.level";

    private static final ConfigDef CONFIG = CommonClientConfigs.withCommon(new ConfigDef())
        .define(KEY_DESERIALIZER_CLASS_CONFIG, Type.CLASS, null, "Deserializer class for keys")
        .define(VALUE_DESERIALIZER_CLASS_CONFIG, Type.CLASS, null, "Deserializer class for values")
        .define(GROUP_ID_CONFIG, Type.STRING, null, "The consumer group; needed for subscribe and commits")
        .define(GROUP_INSTANCE_ID_CONFIG, Type.STRING, null, "A static member id")
        .define(ENABLE_AUTO_COMMIT_CONFIG, Type.BOOLEAN, true, "Commit positions in the background (with a group)")
        .define(AUTO_COMMIT_INTERVAL_MS_CONFIG, Type.INT, 5000, ConfigDef.atLeast(0), "How often positions are committed")
        .define(SESSION_TIMEOUT_MS_CONFIG, Type.INT, 45_000, "Group session timeout")
        .define(HEARTBEAT_INTERVAL_MS_CONFIG, Type.INT, 3000, "Group heartbeat interval")
        .define(MAX_POLL_INTERVAL_MS_CONFIG, Type.INT, 300_000, ConfigDef.atLeast(1), "Longest time between polls in a group")
        .define(PARTITION_ASSIGNMENT_STRATEGY_CONFIG, Type.LIST, "range,cooperative-sticky", ConsumerConfig::knownAssignors,
            "Group assignors, in preference order")
        .define(AUTO_OFFSET_RESET_CONFIG, Type.STRING, "latest", ConfigDef.oneOfIgnoringCase("earliest", "latest", "none"),
            "Where to start when there is no valid position")
        .define(MAX_POLL_RECORDS_CONFIG, Type.INT, 500, ConfigDef.atLeast(1), "The most records one poll returns")
        .define(FETCH_MIN_BYTES_CONFIG, Type.INT, 1, ConfigDef.atLeast(0), "The broker waits for this many bytes")
        .define(FETCH_MAX_WAIT_MS_CONFIG, Type.INT, 500, ConfigDef.atLeast(0), "... but no longer than this")
        .define(MAX_PARTITION_FETCH_BYTES_CONFIG, Type.INT, 1_048_576, ConfigDef.atLeast(0), "Bytes per partition per fetch")
        .define(FETCH_MAX_BYTES_CONFIG, Type.INT, 52_428_800, ConfigDef.atLeast(0), "Bytes per fetch response")
        .define(CHECK_CRCS_CONFIG, Type.BOOLEAN, true, "Check the CRC of every fetched batch")
        .define(DEFAULT_API_TIMEOUT_MS_CONFIG, Type.INT, 60_000, ConfigDef.atLeast(0), "Bound on blocking calls without a timeout")
        .define(INTERCEPTOR_CLASSES_CONFIG, Type.LIST, "", "ConsumerInterceptor classes, called in order")
        .define(ISOLATION_LEVEL_CONFIG, Type.STRING, "read_uncommitted", ConfigDef.oneOfIgnoringCase("read_uncommitted"),
            "Only read_uncommitted: Raftline has no transactions");

    /** Parses a map of configs. */
    public ConsumerConfig(Map<?, ?> props) {
        super(CONFIG, props);
    }

    /** Parses properties. */
    public ConsumerConfig(Properties props) {
        this(toMap(props));
    }

    /** Every consumer key, for documentation and tools. */
    public static ConfigDef configDef() {
        return CONFIG;
    }

    /** A {@code partition.assignment.strategy} whose every name is an assignor this client has (else why not). */
    private static String knownAssignors(Object value) {
        for (Object name : (java.util.List<?>) value) {
            try {
                io.raftline.client.consumer.assignor.ConsumerPartitionAssignor.forName(String.valueOf(name));
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        }
        return null;
    }
}
