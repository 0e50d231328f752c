package io.raftline.broker.replica;

import io.raftline.broker.quota.Throttle;
import io.raftline.common.Time;
import io.raftline.common.config.ConfigDef;
import io.raftline.common.config.ReplicationThrottleConfig;
import io.raftline.common.config.ThrottledReplicas;
import io.raftline.common.config.TopicConfig;
import io.raftline.metadata.image.ConfigResource;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.metadata.ConfigResourceType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This broker's replication throttles (KIP-73): one {@link Throttle} for what it sends, as leader, to out-of-sync
 * followers of its throttled replicas, and one for what it fetches, as follower, for its out-of-sync throttled
 * replicas. Which replicas are throttled comes from the topic configs {@code leader/follower.replication.throttled
 * .replicas}; the rates from {@code leader/follower.replication.throttled.rate}: this broker's dynamic value, else
 * the cluster-wide dynamic default, else {@code server.properties}, else no limit.
 *
 * <p>{@link #update} runs on the metadata thread with each new image (so an {@code configs alter} takes effect at
 * once); the fetch paths read the last state without a lock.
 */
public final class ReplicationQuotas {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicationQuotas.class);
    /** The throttles' window: a limited replica may send up to one second's worth at once after a pause. */
    static final long WINDOW_NS = 1_000_000_000L;

    /** What {@link #update} derives from an image: the rates and, per topic, the replicas of this broker listed. */
    record State(long leaderRate, long followerRate, Map<String, ThrottledReplicas> leaderReplicas,
                 Map<String, ThrottledReplicas> followerReplicas) {
        static final State NONE = new State(Throttle.UNLIMITED, Throttle.UNLIMITED, Map.of(), Map.of());
    }

    private final int brokerId;
    private final Time time;
    private final Map<String, String> staticConfig;
    private final Throttle leader;
    private final Throttle follower;
    private volatile State state = State.NONE;
    private Map<ConfigResource, Map<String, String>> lastConfigs = Map.of();

    /** @param staticConfig {@code server.properties} (for the static rates; other keys are ignored) */
    public ReplicationQuotas(int brokerId, Time time, Map<String, String> staticConfig) {
        this.brokerId = brokerId;
        this.time = time;
        this.staticConfig = Map.copyOf(staticConfig);
        long now = time.nanoseconds();
        this.leader = new Throttle(Throttle.UNLIMITED, WINDOW_NS, now);
        this.follower = new Throttle(Throttle.UNLIMITED, WINDOW_NS, now);
        apply(derive(brokerId, Map.of(), this.staticConfig));
    }

    /** No throttling at all (tests that build fetchers by hand). */
    public static ReplicationQuotas none(Time time) {
        return new ReplicationQuotas(-1, time, Map.of());
    }

    /** Takes the throttles of a new metadata image (metadata thread). */
    public synchronized void update(MetadataImage image) {
        if (image.configs().equals(lastConfigs)) {
            return;
        }
        lastConfigs = image.configs();
        State next = derive(brokerId, image.configs(), staticConfig);
        if (!next.equals(state)) {
            LOG.info("replication throttles now: leader {} B/s on {}, follower {} B/s on {}", rate(next.leaderRate()),
                next.leaderReplicas(), rate(next.followerRate()), next.followerReplicas());
        }
        apply(next);
    }

    private void apply(State next) {
        long now = time.nanoseconds();
        leader.setRate(next.leaderRate(), now);
        follower.setRate(next.followerRate(), now);
        state = next;
    }

    private static String rate(long r) {
        return r == Throttle.UNLIMITED ? "unlimited" : Long.toString(r);
    }

    /**
     * The throttles of {@code brokerId} given every dynamic config and its {@code server.properties}: a pure
     * function. A value that does not parse (the controller validates them, so only an old record could hold one)
     * counts as unset.
     */
    static State derive(int brokerId, Map<ConfigResource, Map<String, String>> configs, Map<String, String> staticConfig) {
        Map<String, ThrottledReplicas> leaders = new HashMap<>();
        Map<String, ThrottledReplicas> followers = new HashMap<>();
        configs.forEach((resource, values) -> {
            if (resource.type() != ConfigResourceType.TOPIC) {
                return;
            }
            listed(values.get(TopicConfig.LEADER_REPLICATION_THROTTLED_REPLICAS), brokerId, leaders, resource.name());
            listed(values.get(TopicConfig.FOLLOWER_REPLICATION_THROTTLED_REPLICAS), brokerId, followers, resource.name());
        });
        Map<String, String> own = configs.getOrDefault(ConfigResource.broker(Integer.toString(brokerId)), Map.of());
        Map<String, String> cluster = configs.getOrDefault(ConfigResource.broker(""), Map.of());
        return new State(effectiveRate(ReplicationThrottleConfig.LEADER_RATE, own, cluster, staticConfig),
            effectiveRate(ReplicationThrottleConfig.FOLLOWER_RATE, own, cluster, staticConfig), Map.copyOf(leaders),
            Map.copyOf(followers));
    }

    private static void listed(String value, int brokerId, Map<String, ThrottledReplicas> into, String topic) {
        if (value == null) {
            return;
        }
        try {
            ThrottledReplicas r = ThrottledReplicas.parse(value);
            if (r.all() || r.replicas().values().stream().anyMatch(brokers -> brokers.contains(brokerId))) {
                into.put(topic, r);
            }
        } catch (IllegalArgumentException e) {
            LOG.warn("topic '{}': ignoring a throttled replica list that does not parse: {}", topic, e.getMessage());
        }
    }

    /** This broker's dynamic value, else the cluster-wide dynamic default, else the static one, else unlimited. */
    static long effectiveRate(String key, Map<String, String> own, Map<String, String> cluster,
                              Map<String, String> staticConfig) {
        for (Map<String, String> source : List.of(own, cluster, staticConfig)) {
            String v = source.get(key);
            if (v != null && ReplicationThrottleConfig.problem(key, v).isEmpty()) {
                return (Long) ConfigDef.parseValue(key, v, ConfigDef.Type.LONG);
            }
        }
        return Throttle.UNLIMITED;
    }

    /** Whether this broker, leading {@code tp}, throttles what it sends to {@code follower} (out of the ISR). */
    boolean leaderThrottles(TopicPartition tp, boolean followerInSync) {
        if (followerInSync) {
            return false;
        }
        ThrottledReplicas r = state.leaderReplicas().get(tp.topic());
        return r != null && !leader.unlimited() && r.contains(tp.partition(), brokerId);
    }

    /** Whether this broker's out-of-sync replica of {@code tp} fetches within the follower throttle. */
    boolean followerThrottles(TopicPartition tp, boolean inSync) {
        if (inSync) {
            return false;
        }
        ThrottledReplicas r = state.followerReplicas().get(tp.topic());
        return r != null && !follower.unlimited() && r.contains(tp.partition(), brokerId);
    }

    long leaderAllowance() {
        return leader.allowance(time.nanoseconds());
    }

    long followerAllowance() {
        return follower.allowance(time.nanoseconds());
    }

    void recordLeader(long bytes) {
        leader.record(bytes, time.nanoseconds());
    }

    void recordFollower(long bytes) {
        follower.record(bytes, time.nanoseconds());
    }
}
