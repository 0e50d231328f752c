package io.raftline.broker.quota;

import io.raftline.common.Time;
import io.raftline.common.config.ClientQuotaConfig;
import io.raftline.metadata.image.ConfigResource;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.metadata.ConfigResourceType;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Client quotas on this broker (KIP-13, KIP-124): produce and fetch bytes per second and the share of request time,
 * per user or client id, from the dynamic configs in the metadata image. Each entity has one {@link Throttle} per
 * kind, shared by all its connections to this broker; a request past the limit gets a throttle time, and the broker
 * delays its answer by that time (so the client, waiting for its answer, waits it out) and reports it in the answer's
 * {@code throttle_time_ms}.
 *
 * <p>Which quota applies ({@link #resolve}, pure): for each kind, the first of the user's own quota, the
 * {@code <default>} user quota, the client id's own, the {@code <default>} client quota that sets that kind. A default
 * is a rate for each user (or client id) on its own, as in Kafka, not one shared by all.
 */
public final class ClientQuotas {

    /** What a quota limits: bytes produced, bytes fetched, or request time (ns). */
    public enum Kind {
        PRODUCE(ClientQuotaConfig.PRODUCER_BYTE_RATE), FETCH(ClientQuotaConfig.CONSUMER_BYTE_RATE),
        REQUEST_TIME(ClientQuotaConfig.REQUEST_PERCENTAGE);

        final String key;

        Kind(String key) {
            this.key = key;
        }
    }

    /** The quota that applies: the entity whose bucket counts ({@code user:alice}, {@code client:app}) and its rate. */
    public record Limit(String entity, long ratePerSec) {
    }

    /** Each bucket holds this much time's worth of its rate: a burst up to one second passes. */
    static final long WINDOW_NS = TimeUnit.SECONDS.toNanos(1);
    /** The most one answer is delayed (a larger debt is paid off over the next answers). */
    static final long MAX_THROTTLE_MS = 10_000;

    private final Supplier<MetadataImage> image;
    private final Time time;
    private final Map<String, Throttle> throttles = new ConcurrentHashMap<>();

    public ClientQuotas(Supplier<MetadataImage> image, Time time) {
        this.image = image;
        this.time = time;
    }

    /**
     * The quota of {@code kind} for the principal (its name: "User:alice" is user "alice") and client id, or null when
     * none applies.
     */
    public static Limit resolve(MetadataImage image, Kind kind, String principal, String clientId) {
        String user = principal.startsWith("User:") ? principal.substring("User:".length()) : principal;
        Limit limit = level(image, kind, ConfigResourceType.USER, user, "user:" + user);
        if (limit == null) {
            limit = level(image, kind, ConfigResourceType.USER, ClientQuotaConfig.DEFAULT_ENTITY, "user:" + user);
        }
        if (limit == null) {
            limit = level(image, kind, ConfigResourceType.CLIENT, clientId, "client:" + clientId);
        }
        if (limit == null) {
            limit = level(image, kind, ConfigResourceType.CLIENT, ClientQuotaConfig.DEFAULT_ENTITY, "client:" + clientId);
        }
        return limit;
    }

    /** The quota of {@code kind} set on one entity, counted in {@code bucket}; null when that entity sets none. */
    private static Limit level(MetadataImage image, Kind kind, ConfigResourceType type, String name, String bucket) {
        String value = image.configs(new ConfigResource(type, name)).get(kind.key);
        return value == null ? null : new Limit(bucket, rate(kind, value));
    }

    /** Bytes per second; for request time, nanoseconds of request time per second (100 % = one thread's second). */
    private static long rate(Kind kind, String value) {
        if (kind == Kind.REQUEST_TIME) {
            return Math.max(1, (long) (Double.parseDouble(value) / 100.0 * TimeUnit.SECONDS.toNanos(1)));
        }
        return Long.parseLong(value);
    }

    private record Scan(MetadataImage image, boolean any) {
    }

    /** The image {@link #anyQuota} last looked at, and what it found: one scan per image, not per request. */
    private volatile Scan scan = new Scan(null, false);

    /** Whether any client quota is set in {@code image} (when none is, recording costs nothing more). */
    private boolean anyQuota(MetadataImage image) {
        Scan last = scan;
        if (last.image() != image) {
            boolean any = false;
            for (ConfigResource r : image.configs().keySet()) {
                if (r.type() == ConfigResourceType.USER || r.type() == ConfigResourceType.CLIENT) {
                    any = true;
                    break;
                }
            }
            last = new Scan(image, any);
            scan = last;
        }
        return last.any();
    }

    /**
     * Counts {@code amount} (bytes, or ns of request time) against the caller's quota of {@code kind}; returns how
     * long its answer should be delayed, in ms (0: not throttled).
     */
    public long record(Kind kind, String principal, String clientId, long amount) {
        MetadataImage now = image.get();
        if (!anyQuota(now)) {
            return 0;
        }
        Limit limit = resolve(now, kind, principal, clientId);
        if (limit == null) {
            return 0;
        }
        long nowNs = time.nanoseconds();
        Throttle t = throttles.computeIfAbsent(kind + "|" + limit.entity(), k -> new Throttle(limit.ratePerSec(), WINDOW_NS, nowNs));
        if (t.ratePerSec() != limit.ratePerSec()) {
            t.setRate(limit.ratePerSec(), nowNs);
        }
        t.record(amount, nowNs);
        return Math.min(MAX_THROTTLE_MS, TimeUnit.NANOSECONDS.toMillis(t.throttleTimeNs(nowNs)));
    }

    /** The larger of the produce (or fetch) byte throttle and the request-time throttle for one answered request. */
    public long throttleMs(Kind bytesKind, String principal, String clientId, long bytes, long requestNs) {
        long a = record(bytesKind, principal, clientId, bytes);
        long b = record(Kind.REQUEST_TIME, principal, clientId, requestNs);
        return Math.max(a, b);
    }
}
