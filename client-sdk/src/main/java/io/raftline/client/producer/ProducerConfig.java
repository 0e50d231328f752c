package io.raftline.client.producer;

import io.raftline.client.common.config.AbstractConfig;
import io.raftline.client.common.config.CommonClientConfigs;
import io.raftline.common.config.ConfigDef;
import io.raftline.common.config.ConfigDef.Type;
import io.raftline.client.errors.ConfigException;
import java.util.Map;
import java.util.Properties;

/**
 * The producer's configuration: Kafka's key names and Kafka 4's defaults ({@code acks=all}, {@code linger.ms=5},
 * {@code batch.size=16384}, {@code enable.idempotence=true}, {@code buffer.memory=33554432},
 * {@code max.in.flight.requests.per.connection=5}, {@code retries=Integer.MAX_VALUE},
 * {@code delivery.timeout.ms=120000}, {@code request.timeout.ms=30000}, {@code max.block.ms=60000},
 * {@code compression.type=none}). An unknown key or bad value fails construction with one message naming the key.
 */
public final class ProducerConfig extends AbstractConfig {

    public static final String BOOTSTRAP_SERVERS_CONFIG = CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG;
    public static final String CLIENT_ID_CONFIG = CommonClientConfigs.CLIENT_ID_CONFIG;
    public static final String KEY_SERIALIZER_CLASS_CONFIG = "key.serializer";
    public static final String VALUE_SERIALIZER_CLASS_CONFIG = "value.serializer";
    public static final String ACKS_CONFIG = "acks";
    public static final String LINGER_MS_CONFIG = "linger.ms";
    public static final String BATCH_SIZE_CONFIG = "batch.size";
    public static final String ENABLE_IDEMPOTENCE_CONFIG = "enable.idempotence";
    public static final String BUFFER_MEMORY_CONFIG = "buffer.memory";
    public static final String MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION = "max.in.flight.requests.per.connection";
    public static final String RETRIES_CONFIG = "retries";
    public static final String RETRY_BACKOFF_MS_CONFIG = CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG;
    public static final String RETRY_BACKOFF_MAX_MS_CONFIG = CommonClientConfigs.RETRY_BACKOFF_MAX_MS_CONFIG;
    public static final String DELIVERY_TIMEOUT_MS_CONFIG = "delivery.timeout.ms";
    public static final String REQUEST_TIMEOUT_MS_CONFIG = CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG;
    public static final String MAX_BLOCK_MS_CONFIG = "max.block.ms";
    public static final String COMPRESSION_TYPE_CONFIG = "compression.type";
    public static final String MAX_REQUEST_SIZE_CONFIG = "max.request.size";
    public static final String PARTITIONER_CLASS_CONFIG = "partitioner.class";
    public static final String PARTITIONER_IGNORE_KEYS_CONFIG = "partitioner.ignore.keys";
    public static final String INTERCEPTOR_CLASSES_CONFIG = CommonClientConfigs.INTERCEPTOR_CLASSES_CONFIG;
    public static final String METADATA_MAX_AGE_MS_CONFIG = CommonClientConfigs.METADATA_MAX_AGE_MS_CONFIG;

    private static final ConfigDef CONFIG = CommonClientConfigs.withCommon(new ConfigDef())
        .define(KEY_SERIALIZER_CLASS_CONFIG, Type.CLASS, null, "Serializer class for keys")
        .define(VALUE_SERIALIZER_CLASS_CONFIG, Type.CLASS, null, "Serializer class for values")
        .define(ACKS_CONFIG, Type.STRING, "all", ConfigDef.oneOfIgnoringCase("all", "-1", "0", "1"),
            "Acknowledgements the leader waits for: 0 none, 1 its own append, all every in-sync replica")
        .define(LINGER_MS_CONFIG, Type.LONG, 5L, ConfigDef.atLeast(0), "How long a batch waits for more records")
        .define(BATCH_SIZE_CONFIG, Type.INT, 16_384, ConfigDef.atLeast(0), "The target size of one partition's batch, in bytes")
        .define(ENABLE_IDEMPOTENCE_CONFIG, Type.BOOLEAN, true, "Write each record exactly once and in order per partition")
        .define(BUFFER_MEMORY_CONFIG, Type.LONG, 33_554_432L, ConfigDef.atLeast(0), "Bytes the producer may hold unsent")
        .define(MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, Type.INT, 5, ConfigDef.atLeast(1), "Unanswered requests per broker")
        .define(RETRIES_CONFIG, Type.INT, Integer.MAX_VALUE, ConfigDef.atLeast(0), "How often a failed batch is resent")
        .define(DELIVERY_TIMEOUT_MS_CONFIG, Type.INT, 120_000, ConfigDef.atLeast(0),
            "The bound on the time between send() returning and the callback")
        .define(MAX_BLOCK_MS_CONFIG, Type.LONG, 60_000L, ConfigDef.atLeast(0),
            "How long send() and partitionsFor() may block for metadata or buffer space")
        .define(COMPRESSION_TYPE_CONFIG, Type.STRING, "none", ConfigDef.oneOfIgnoringCase("none", "gzip", "snappy", "lz4", "zstd"),
            "The codec for record batches")
        .define(MAX_REQUEST_SIZE_CONFIG, Type.INT, 1_048_576, ConfigDef.atLeast(0), "The largest record (and request) in bytes")
        .define(PARTITIONER_CLASS_CONFIG, Type.CLASS, null, "A Partitioner; default: murmur2 of the key, sticky for null keys")
        .define(PARTITIONER_IGNORE_KEYS_CONFIG, Type.BOOLEAN, false, "Spread records stickily even when they have keys")
        .define(INTERCEPTOR_CLASSES_CONFIG, Type.LIST, "", "ProducerInterceptor classes, called in order");

    /** Parses a map of configs. */
    public ProducerConfig(Map<?, ?> props) {
        super(CONFIG, props);
        check(props);
    }

    /** Parses properties. */
    public ProducerConfig(Properties props) {
        this(toMap(props));
    }

    /** Every producer key, for documentation and tools. */
    public static ConfigDef configDef() {
        return CONFIG;
    }

    /** The acks value as the wire sends it: 0, 1 or -1. */
    public short acks() {
        String acks = getString(ACKS_CONFIG);
        return acks.equalsIgnoreCase("all") ? -1 : Short.parseShort(acks);
    }

    /**
     * Whether idempotence is in effect. As in Kafka 4: on by default, but silently off when the user set an
     * incompatible acks/retries/in-flight value without asking for idempotence explicitly.
     */
    public boolean idempotenceEnabled() {
        if (originals().containsKey(ENABLE_IDEMPOTENCE_CONFIG)) {
            return getBoolean(ENABLE_IDEMPOTENCE_CONFIG);
        }
        return acks() == -1 && getInt(RETRIES_CONFIG) > 0 && getInt(MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION) <= 5;
    }

    private void check(Map<?, ?> props) {
        if (props.containsKey(ENABLE_IDEMPOTENCE_CONFIG) && getBoolean(ENABLE_IDEMPOTENCE_CONFIG)) {
            if (acks() != -1) {
                throw new ConfigException("Must set " + ACKS_CONFIG + " to all in order to use the idempotent producer");
            }
            if (getInt(MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION) > 5) {
                throw new ConfigException("Must set " + MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION
                    + " to at most 5 to use the idempotent producer");
            }
            if (getInt(RETRIES_CONFIG) == 0) {
                throw new ConfigException("Must set " + RETRIES_CONFIG + " to non-zero when using the idempotent producer");
            }
        }
        long floor = getLong(LINGER_MS_CONFIG) + getInt(REQUEST_TIMEOUT_MS_CONFIG);
        if (getInt(DELIVERY_TIMEOUT_MS_CONFIG) < floor) {
            throw new ConfigException(DELIVERY_TIMEOUT_MS_CONFIG, getInt(DELIVERY_TIMEOUT_MS_CONFIG),
                "must be at least " + LINGER_MS_CONFIG + " + " + REQUEST_TIMEOUT_MS_CONFIG + " = " + floor);
        }
    }
}
