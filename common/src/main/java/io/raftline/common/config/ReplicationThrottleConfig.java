package io.raftline.common.config;

import static io.raftline.common.config.ConfigDef.Type.LONG;
import static io.raftline.common.config.ConfigDef.atLeast;

import java.util.Map;
import java.util.Optional;

/**
 * The broker configs of replication throttling (Kafka's KIP-73 keys), in bytes per second. They may be set in
 * {@code server.properties} and, dynamically, per broker or for every broker ({@code configs alter --entity-type
 * broker --entity-name ID|''}); a dynamic value takes effect on the broker at once. The one definition the broker's
 * config ({@code ServerConfig}) includes and the controller validates an AlterConfigs op with. Unset: no limit.
 *
 * <p>The leader rate bounds the bytes a broker sends to followers of the replicas listed in a topic's
 * {@code leader.replication.throttled.replicas} while those followers are out of the ISR; the follower rate bounds
 * the bytes a broker fetches for its replicas listed in {@code follower.replication.throttled.replicas} while
 * they are out of the ISR.
 */
public final class ReplicationThrottleConfig {

    public static final String LEADER_RATE = "leader.replication.throttled.rate";
    public static final String FOLLOWER_RATE = "follower.replication.throttled.rate";

    public static final ConfigDef DEF = new ConfigDef()
        .define(LEADER_RATE, LONG, null, atLeast(1), "replication",
            "Bytes per second a leader sends to out-of-sync followers of its throttled replicas (topic config "
                + "leader.replication.throttled.replicas); unset: no limit. Dynamic.")
        .define(FOLLOWER_RATE, LONG, null, atLeast(1), "replication",
            "Bytes per second a follower fetches for its throttled replicas while out of sync (topic config "
                + "follower.replication.throttled.replicas); unset: no limit. Dynamic.");

    private ReplicationThrottleConfig() {
    }

    public static boolean isKnown(String name) {
        return DEF.names().contains(name);
    }

    /** Empty when {@code value} is acceptable for {@code name}; else why not, in one line. */
    public static Optional<String> problem(String name, String value) {
        if (!isKnown(name)) {
            return Optional.of("unknown replication throttle config '" + name + "'");
        }
        try {
            DEF.parse(Map.of(name, value), ConfigDef.UnknownKeys.REFUSE);
            return Optional.empty();
        } catch (ConfigException e) {
            return Optional.of(e.getMessage());
        }
    }
}
