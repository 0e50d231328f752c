package io.raftline.broker.console;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.ClusterOverview;
import io.raftline.client.admin.ClusterOverview.PartitionView;
import io.raftline.client.admin.ClusterOverview.TopicView;
import io.raftline.client.admin.ElectionType;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.errors.GroupIdNotFoundException;
import io.raftline.client.errors.NonEmptyGroupException;
import io.raftline.client.errors.RetriableException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.errors.TopicExistsException;
import io.raftline.client.errors.UnknownTopicOrPartitionException;
import io.raftline.common.Time;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the console asks the cluster, through the project's own {@link Admin} client created inside the node against
 * the cluster's brokers (so the page shows what {@code raftline topics describe} and {@code groups describe} show).
 * The overview is cached for {@link #OVERVIEW_TTL_MS} so that several open pages cost the cluster one read per
 * refresh. Thread-safe.
 */
final class ConsoleBackend implements AutoCloseable {

    static final long OVERVIEW_TTL_MS = 1000;
    static final Duration BROKER_TIMEOUT = Duration.ofSeconds(2);
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    private final Supplier<String> bootstrap;
    private final String clientId;
    private final java.util.Map<String, String> clientSecurity;
    private final Time time;
    private Admin admin;
    private ClusterOverview cached;
    private long cachedAtMs;

    ConsoleBackend(Supplier<String> bootstrap, String clientId, java.util.Map<String, String> clientSecurity, Time time) {
        this.clientSecurity = clientSecurity;
        this.bootstrap = bootstrap;
        this.clientId = clientId;
        this.time = time;
    }

    private synchronized Admin admin() {
        if (admin == null) {
            String servers = bootstrap.get();
            if (servers == null || servers.isEmpty()) {
                throw new ConsoleException(503, "no broker is known yet to ask the cluster");
            }
            Properties props = new Properties();
            props.setProperty("bootstrap.servers", servers);
            props.setProperty("client.id", clientId);
            props.setProperty("default.api.timeout.ms", Long.toString(CALL_TIMEOUT.toMillis()));
            props.putAll(clientSecurity);
            admin = Admin.create(props);
        }
        return admin;
    }

    /** The cluster as last read, at most {@link #OVERVIEW_TTL_MS} old. */
    synchronized ClusterOverview overview() {
        if (cached == null || time.milliseconds() - cachedAtMs >= OVERVIEW_TTL_MS) {
            try {
                cached = ClusterOverview.fetch(admin(), BROKER_TIMEOUT, CALL_TIMEOUT);
            } catch (IllegalStateException e) {
                throw new ConsoleException(503, "cannot read the cluster: " + e.getMessage(), e);
            }
            // aged from when the read ended: requests that queued behind a slow read take its result
            cachedAtMs = time.milliseconds();
        }
        return cached;
    }

    /** A fresh read, for admin actions that must not act on a stale picture. */
    synchronized ClusterOverview freshOverview() {
        cached = null;
        return overview();
    }

    TopicView topic(ClusterOverview o, String name) {
        TopicView t = o.topic(name);
        if (t == null) {
            throw new ConsoleException(404, "unknown topic '" + name + "'");
        }
        return t;
    }

    PartitionView partition(ClusterOverview o, String topic, int partition) {
        TopicView t = topic(o, topic);
        return t.partitions().stream().filter(p -> p.partition() == partition).findFirst()
            .orElseThrow(() -> new ConsoleException(404, "topic '" + topic + "' has no partition " + partition
                + " (it has " + t.partitions().size() + ")"));
    }

    void createTopic(String topic, int partitions, short replicationFactor) {
        call(admin().createTopics(List.of(new NewTopic(topic, partitions, replicationFactor))).all());
        invalidate();
    }

    void electPreferredLeader(String topic, int partition) {
        partition(freshOverview(), topic, partition);
        call(admin().electLeaders(ElectionType.PREFERRED, Set.of(new TopicPartition(topic, partition))).all());
        invalidate();
    }

    /**
     * Sets the group's committed offset in every partition of {@code topic} to the log start ({@code earliest}),
     * the high watermark ({@code latest}) or {@code offset} bounded by both; returns the offsets set.
     */
    Map<TopicPartition, Long> resetOffsets(String group, String topic, String to, Long offset) {
        ClusterOverview o = freshOverview();
        if (o.group(group) == null) {
            throw new ConsoleException(404, "unknown group '" + group + "'");
        }
        TopicView t = topic(o, topic);
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        Map<TopicPartition, Long> out = new HashMap<>();
        for (PartitionView p : t.partitions()) {
            if (p.logStartOffset() == null || p.highWatermark() == null) {
                throw new ConsoleException(503, "the leader of " + topic + "-" + p.partition() + " does not answer");
            }
            long target = switch (to) {
                case "earliest" -> p.logStartOffset();
                case "latest" -> p.highWatermark();
                default -> Math.min(Math.max(offset, p.logStartOffset()), p.highWatermark());
            };
            TopicPartition tp = new TopicPartition(topic, p.partition());
            offsets.put(tp, new OffsetAndMetadata(target));
            out.put(tp, target);
        }
        call(admin().alterConsumerGroupOffsets(group, offsets));
        invalidate();
        return out;
    }

    private synchronized void invalidate() {
        cached = null;
    }

    /** Waits for an admin call; its failure becomes one status and line (409 conflict, 404 unknown, 503 retry). */
    private static <T> T call(CompletableFuture<T> future) {
        try {
            return future.get(CALL_TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause() == null ? e : e.getCause();
            String msg = c.getMessage() == null ? c.toString() : c.getMessage();
            int status;
            if (c instanceof TopicExistsException || c instanceof NonEmptyGroupException) {
                status = 409;
            } else if (c instanceof UnknownTopicOrPartitionException || c instanceof GroupIdNotFoundException) {
                status = 404;
            } else if (c instanceof RetriableException || c instanceof TimeoutException) {
                status = 503;
            } else {
                status = 400;
            }
            throw new ConsoleException(status, msg, c);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new ConsoleException(503, "the cluster did not answer in time", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConsoleException(503, "interrupted", e);
        }
    }

    String bootstrap() {
        return bootstrap.get();
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
        }
    }
}
