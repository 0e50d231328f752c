package io.raftline.client.admin;

import io.raftline.client.common.config.AbstractConfig;
import io.raftline.client.common.config.CommonClientConfigs;
import io.raftline.common.config.ConfigDef;
import io.raftline.common.config.ConfigDef.Type;
import java.util.Map;
import java.util.Properties;

/** The admin client's configuration (Kafka's names and defaults); unknown keys and bad values fail construction. */
public final class AdminClientConfig extends AbstractConfig {

    public static final String BOOTSTRAP_SERVERS_CONFIG = CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG;
    public static final String CLIENT_ID_CONFIG = CommonClientConfigs.CLIENT_ID_CONFIG;
    public static final String REQUEST_TIMEOUT_MS_CONFIG = CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG;
    public static final String DEFAULT_API_TIMEOUT_MS_CONFIG = CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG;
    public static final String RETRY_BACKOFF_MS_CONFIG = CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG;
    public static final String RETRIES_CONFIG = "retries";

    private static final ConfigDef CONFIG = CommonClientConfigs.withCommon(new ConfigDef())
        .define(DEFAULT_API_TIMEOUT_MS_CONFIG, Type.INT, 60_000, ConfigDef.atLeast(0), "Bound on each admin call")
        .define(RETRIES_CONFIG, Type.INT, Integer.MAX_VALUE, ConfigDef.atLeast(0), "How often a retriable failure is retried");

    /** Parses a map of configs. */
    public AdminClientConfig(Map<?, ?> props) {
        super(CONFIG, props);
    }

    /** Parses properties. */
    public AdminClientConfig(Properties props) {
        this(toMap(props));
    }

    /** Every admin key. */
    public static ConfigDef configDef() {
        return CONFIG;
    }
}
