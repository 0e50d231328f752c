package io.raftline.client.common.config;

import io.raftline.common.tls.SecurityConfig;
import io.raftline.common.config.ConfigDef;

/** Keys shared by the producer, consumer and admin client, with Kafka's names and defaults. */
public final class CommonClientConfigs {

    /** {@code host:port} pairs of any brokers; the client learns the rest of the cluster from them. */
    public static final String BOOTSTRAP_SERVERS_CONFIG = "bootstrap.servers";
    /** A name for this client in broker logs and metrics. */
    public static final String CLIENT_ID_CONFIG = "client.id";
    /** How long to wait for one broker response before failing (or retrying) that request. */
    public static final String REQUEST_TIMEOUT_MS_CONFIG = "request.timeout.ms";
    /** The first backoff before a retry. */
    public static final String RETRY_BACKOFF_MS_CONFIG = "retry.backoff.ms";
    /** The largest backoff before a retry; backoffs grow exponentially up to it. */
    public static final String RETRY_BACKOFF_MAX_MS_CONFIG = "retry.backoff.max.ms";
    /** Metadata is refreshed at least this often even without errors. */
    public static final String METADATA_MAX_AGE_MS_CONFIG = "metadata.max.age.ms";
    /** The bound on blocking client calls that take no explicit timeout. */
    public static final String DEFAULT_API_TIMEOUT_MS_CONFIG = "default.api.timeout.ms";
    /** The first backoff before reconnecting to a broker. */
    public static final String RECONNECT_BACKOFF_MS_CONFIG = "reconnect.backoff.ms";
    /** The largest backoff before reconnecting to a broker; backoffs grow exponentially up to it. */
    public static final String RECONNECT_BACKOFF_MAX_MS_CONFIG = "reconnect.backoff.max.ms";
    /** Class names of interceptors, called in the order listed. */
    public static final String INTERCEPTOR_CLASSES_CONFIG = "interceptor.classes";

    private CommonClientConfigs() {
    }

    /** Adds the keys every client has. */
    public static ConfigDef withCommon(ConfigDef def) {
        return SecurityConfig.defineClient(def)
            .defineRequired(BOOTSTRAP_SERVERS_CONFIG, ConfigDef.Type.LIST,
                ConfigDef.all(ConfigDef.nonEmptyList(), ConfigDef.eachHostPort()), "",
                "Comma-separated host:port pairs of brokers to learn the cluster from")
            .define(CLIENT_ID_CONFIG, ConfigDef.Type.STRING, "", "A name for this client in logs and metrics")
            .define(REQUEST_TIMEOUT_MS_CONFIG, ConfigDef.Type.INT, 30_000, ConfigDef.atLeast(0),
                "How long one request may wait for its response")
            .define(RETRY_BACKOFF_MS_CONFIG, ConfigDef.Type.LONG, 100L, ConfigDef.atLeast(0), "The first backoff before a retry")
            .define(RETRY_BACKOFF_MAX_MS_CONFIG, ConfigDef.Type.LONG, 1000L, ConfigDef.atLeast(0), "The largest backoff before a retry")
            .define(METADATA_MAX_AGE_MS_CONFIG, ConfigDef.Type.LONG, 300_000L, ConfigDef.atLeast(0),
                "Refresh metadata at least this often")
            .define(RECONNECT_BACKOFF_MS_CONFIG, ConfigDef.Type.LONG, 50L, ConfigDef.atLeast(0),
                "The first backoff before reconnecting to a broker")
            .define(RECONNECT_BACKOFF_MAX_MS_CONFIG, ConfigDef.Type.LONG, 1000L, ConfigDef.atLeast(0),
                "The largest backoff before reconnecting to a broker that keeps failing (doubling per failure, 20% jitter)");
    }
}
