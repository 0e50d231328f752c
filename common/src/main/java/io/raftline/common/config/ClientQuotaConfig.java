package io.raftline.common.config;

import static io.raftline.common.config.ConfigDef.Type.DOUBLE;
import static io.raftline.common.config.ConfigDef.Type.LONG;
import static io.raftline.common.config.ConfigDef.atLeast;

import java.util.Map;
import java.util.Optional;

/**
 * Client quotas (Kafka's KIP-13 and KIP-124 keys), set dynamically per user ({@code configs alter --entity-type users
 * --entity-name alice}) or per client id ({@code --entity-type clients}), {@link #DEFAULT_ENTITY} for every user or
 * client without its own. The one definition the controller validates an AlterConfigs op with. Unset: no limit.
 */
public final class ClientQuotaConfig {

    public static final String PRODUCER_BYTE_RATE = "producer_byte_rate";
    public static final String CONSUMER_BYTE_RATE = "consumer_byte_rate";
    public static final String REQUEST_PERCENTAGE = "request_percentage";
    /** The entity name that stands for every user (or client id) that has no quota of its own. */
    public static final String DEFAULT_ENTITY = "<default>";

    public static final ConfigDef DEF = new ConfigDef()
        .define(PRODUCER_BYTE_RATE, LONG, null, atLeast(1), "quota",
            "Bytes per second the entity may produce to each broker; past it, answers are delayed by the throttle time.")
        .define(CONSUMER_BYTE_RATE, LONG, null, atLeast(1), "quota",
            "Bytes per second the entity may fetch from each broker; past it, answers are delayed by the throttle time.")
        .define(REQUEST_PERCENTAGE, DOUBLE, null, ConfigDef.betweenDouble(0.01, 100_000), "quota",
            "Percent of one request thread's time the entity's produce and fetch requests may take on each broker.");

    private ClientQuotaConfig() {
    }

    public static boolean isKnown(String name) {
        return DEF.names().contains(name);
    }

    /** Empty when {@code value} is acceptable for {@code name}; else why not, in one line. */
    public static Optional<String> problem(String name, String value) {
        if (!isKnown(name)) {
            return Optional.of("unknown quota '" + name + "': one of " + DEF.names());
        }
        try {
            DEF.parse(Map.of(name, value), ConfigDef.UnknownKeys.REFUSE);
            return Optional.empty();
        } catch (ConfigException e) {
            return Optional.of(e.getMessage());
        }
    }
}
