package io.raftline.broker.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.raftline.broker.fetchsession.FetchSessionCache;
import io.raftline.broker.group.GroupCoordinator;
import io.raftline.broker.replica.Partition;
import io.raftline.broker.replica.ReplicaManager;
import io.raftline.broker.replica.TopicPartition;
import io.raftline.common.Time;
import io.raftline.protocol.ErrorCode;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.metadata.image.TopicImage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The broker's metrics, named as Prometheus expects ({@code raftline_..._total} for counters, units in the name)
 * and as the CLI contract lists them. Group gauges are refreshed by {@link #refresh()} (the node calls it every few
 * seconds), so a scrape never walks the groups; per-partition gauges are {@link PartitionMetrics}'. The
 * controller's own metrics (active controller, fenced brokers) are registered by the quorum role.
 */
public final class BrokerMetrics {

    private final MeterRegistry registry;
    private final ReplicaManager replicaManager;
    private final Map<String, Counter> bytesIn = new ConcurrentHashMap<>();
    private final Map<String, Counter> bytesOut = new ConcurrentHashMap<>();
    private final Map<String, Counter> bytesOutReplication = new ConcurrentHashMap<>();
    private final Map<String, Counter> messagesIn = new ConcurrentHashMap<>();
    private final Map<String, Counter> messagesOut = new ConcurrentHashMap<>();
    private final Map<String, Counter> messagesOutReplication = new ConcurrentHashMap<>();
    private final Map<String, Counter> replicationBytesIn = new ConcurrentHashMap<>();
    private final Map<String, Counter> replicationMessagesIn = new ConcurrentHashMap<>();
    /** api -> topic -> counter (no key string built per request). */
    private final Map<String, Map<String, Counter>> requests = new ConcurrentHashMap<>();
    private final Map<String, Timer> latency = new ConcurrentHashMap<>();
    /** phase -> api -> timer. */
    private final Map<Phase, Map<String, Timer>> phases = new ConcurrentHashMap<>();
    /** api -> error code -> counter. */
    private final Map<String, Map<ErrorCode, Counter>> errors = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Counter isrShrinks;
    private final Counter isrExpands;
    private final MultiGauge groupMembers;
    private final MultiGauge groupLag;
    private final MultiGauge groupLagSeconds;
    private final MultiGauge groupState;
    private final MultiGauge groupRebalances;
    private final MultiGauge groupRebalanceSeconds;
    private final Time time;
    /** group, topic, partition -> when the group was last seen caught up (lag 0) there; only the refresh thread. */
    private Map<Tags, Long> groupCaughtUpMs = new HashMap<>();
    private volatile Supplier<List<GroupCoordinator.GroupSnapshot>> groupSource = List::of;
    /** Idle ratios, each read at every {@link #refresh()}. */
    private final List<IdleRatio> idleRatios = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Groups coordinated here at the last {@link #refresh()}. */
    private volatile int groupCount;

    public BrokerMetrics(MeterRegistry registry, ReplicaManager replicaManager, LongSupplier metadataIndex,
                         LongSupplier quorumCommitIndex, Time time) {
        this.registry = registry;
        this.time = time;
        this.replicaManager = replicaManager;
        this.isrShrinks = Counter.builder("raftline.isr.shrinks").description("ISR shrinks this broker asked for and got")
            .register(registry);
        this.isrExpands = Counter.builder("raftline.isr.expands").description("ISR expands this broker asked for and got")
            .register(registry);
        Gauge.builder("raftline.partitions.under.replicated", this, m -> m.count(Partition::underReplicated))
            .description("Partitions this broker leads whose ISR is smaller than their replicas").register(registry);
        Gauge.builder("raftline.partitions.under.min.isr", this, m -> m.count(Partition::underMinIsr))
            .description("Partitions this broker leads whose ISR is below min.insync.replicas").register(registry);
        Gauge.builder("raftline.partitions.leader.count", this, m -> m.count(Partition::isLeader))
            .description("Partitions this broker leads").register(registry);
        Gauge.builder("raftline.partitions.count", this, m -> m.replicaManager.partitions().size())
            .description("Partition replicas on this broker").register(registry);
        Gauge.builder("raftline.partitions.offline", this, m -> m.offlinePartitions(m.replicaManager.image()))
            .description("Partitions without a leader, cluster-wide, in this broker's metadata").register(registry);
        for (boolean followers : new boolean[] {false, true}) {
            Gauge.builder("raftline.fetch.parked", this, m -> m.replicaManager.fetchManager().parkedFetches(followers))
                .tag("from", followers ? "follower" : "consumer")
                .description("Fetches parked in a long poll on this broker (the fetch purgatory)").register(registry);
        }
        Gauge.builder("raftline.metadata.image.index", metadataIndex, LongSupplier::getAsLong)
            .description("Raft index of this node's metadata image").register(registry);
        Gauge.builder("raftline.metadata.lag.entries", this,
                m -> Math.max(0, quorumCommitIndex.getAsLong() - metadataIndex.getAsLong()))
            .description("How far this node's metadata image is behind the quorum's commit index").register(registry);
        this.groupMembers = MultiGauge.builder("raftline.group.members")
            .description("Members of each consumer group this broker coordinates").register(registry);
        this.groupLag = MultiGauge.builder("raftline.group.lag")
            .description("On the coordinator: high watermark minus the group's committed offset, per partition it committed")
            .register(registry);
        Gauge.builder("raftline.produce.purgatory.size", this,
                m -> m.replicaManager.partitions().stream().mapToInt(Partition::commitWaiters).sum())
            .description("acks=all produces waiting for their records to replicate (the produce purgatory)").register(registry);
        this.groupLagSeconds = MultiGauge.builder("raftline.group.lag.seconds")
            .description("On the coordinator: how long ago the group was last caught up on each partition it committed")
            .register(registry);
        this.groupState = MultiGauge.builder("raftline.group.state")
            .description("1 for each group's current state (label state: Empty, PreparingRebalance, CompletingRebalance, Stable)")
            .register(registry);
        this.groupRebalances = MultiGauge.builder("raftline.group.rebalances")
            .description("Rebalances each group began since this coordinator loaded it (only grows; use increase())")
            .register(registry);
        this.groupRebalanceSeconds = MultiGauge.builder("raftline.group.rebalance.last.seconds")
            .description("How long each group's last completed rebalance took").register(registry);
        Gauge.builder("raftline.groups", this, m -> m.groupCount)
            .description("Consumer groups this broker coordinates").register(registry);
    }

    private double count(java.util.function.Predicate<Partition> p) {
        return replicaManager.partitions().stream().filter(p).count();
    }

    private double offlinePartitions(MetadataImage image) {
        long n = 0;
        for (TopicImage topic : image.topicsById().values()) {
            n += topic.partitions().values().stream().filter(p -> !p.hasLeader()).count();
        }
        return n;
    }

    public void recordProduce(String topic, long bytes, long records) {
        bytesIn.computeIfAbsent(topic, t -> Counter.builder("raftline.broker.bytes.in").tag("topic", t)
            .description("Bytes produced to this broker").register(registry)).increment(bytes);
        messagesIn.computeIfAbsent(topic, t -> Counter.builder("raftline.broker.messages.in").tag("topic", t)
            .description("Records produced to this broker").register(registry)).increment(records);
    }

    /**
     * A produce request answered (either listener): a request per topic named, and per partition its bytes and
     * records when appended, else its error.
     */
    public void recordProduced(Map<TopicPartition, java.nio.ByteBuffer> data, Map<TopicPartition, ReplicaManager.ProduceResult> results) {
        data.keySet().stream().map(TopicPartition::topic).distinct().forEach(t -> recordRequest("produce", t));
        for (Map.Entry<TopicPartition, java.nio.ByteBuffer> e : data.entrySet()) {
            ReplicaManager.ProduceResult r = results.get(e.getKey());
            if (r != null && r.error() == ErrorCode.NONE) {
                // The append already counted the records: no third pass over the batch headers.
                recordProduce(e.getKey().topic(), e.getValue().limit(), r.recordCount());
            } else {
                recordError("produce", r == null ? ErrorCode.UNKNOWN : r.error());
            }
        }
    }

    /** One request of {@code api} that named {@code topic} (a request naming several topics counts for each). */
    public void recordRequest(String api, String topic) {
        requests.computeIfAbsent(api, a -> new ConcurrentHashMap<>()).computeIfAbsent(topic, t -> Counter
            .builder("raftline.broker.requests").tag("api", api).tag("topic", t).description("Requests per API and topic")
            .register(registry)).increment();
    }

    /** Record bytes and records sent in a fetch answer, to a consumer or ({@code replication}) to a follower. */
    public void recordFetch(String topic, long bytes, long records, boolean replication) {
        String traffic = replication ? "replication" : "consumer";
        (replication ? bytesOutReplication : bytesOut).computeIfAbsent(topic, t -> Counter.builder("raftline.broker.bytes.out")
            .tag("topic", t).tag("traffic", traffic)
            .description("Record bytes fetched from this broker, by consumers or by followers (traffic)")
            .register(registry)).increment(bytes);
        (replication ? messagesOutReplication : messagesOut).computeIfAbsent(topic, t -> Counter
            .builder("raftline.broker.messages.out").tag("topic", t).tag("traffic", traffic)
            .description("Records fetched from this broker, by consumers or by followers (traffic)")
            .register(registry)).increment(records);
    }

    /** Record bytes and records a follower on this broker appended from its leader. */
    public void recordReplicated(String topic, long bytes, long records) {
        replicationBytesIn.computeIfAbsent(topic, t -> Counter.builder("raftline.replication.bytes.in").tag("topic", t)
            .description("Record bytes this broker's followers appended from their leaders").register(registry))
            .increment(bytes);
        replicationMessagesIn.computeIfAbsent(topic, t -> Counter.builder("raftline.replication.messages.in").tag("topic", t)
            .description("Records this broker's followers appended from their leaders").register(registry))
            .increment(records);
    }

    /** A partition of an {@code api} request answered with {@code error} (NONE is not counted). */
    public void recordError(String api, ErrorCode error) {
        if (error == ErrorCode.NONE) {
            return;
        }
        errors.computeIfAbsent(api, a -> new ConcurrentHashMap<>()).computeIfAbsent(error, e -> Counter
            .builder("raftline.broker.errors").tag("api", api).tag("error", e.name())
            .description("Partitions of requests answered with an error, per API and error code").register(registry))
            .increment();
    }

    /** A request of {@code api} was read; call {@link #requestDone} once it is answered. */
    public void requestStarted(String api) {
        inFlight.computeIfAbsent(api, a -> {
            AtomicInteger n = new AtomicInteger();
            Gauge.builder("raftline.requests.in.flight", n, AtomicInteger::get).tag("api", a)
                .description("Requests read and not yet answered (parked fetches and acks=all produces included)")
                .register(registry);
            return n;
        }).incrementAndGet();
    }

    public void requestDone(String api) {
        AtomicInteger n = inFlight.get(api);
        if (n != null) {
            n.decrementAndGet();
        }
    }

    /**
     * The phases of a request on this broker's gRPC path (docs/metrics.md says what each covers): {@code local}
     * from reading the request to the end of the work done at once (the append, the first read), {@code remote}
     * waiting after that (acks=all: the produce purgatory, until the followers have the records; fetch: parked in
     * the long poll), {@code send} handing the answer to gRPC.
     */
    public enum Phase {
        LOCAL("raftline.request.local", "Time a request spends in the broker's own work (append, read)"),
        REMOTE("raftline.request.remote", "Time a request waits after its own work: acks=all replication, a parked fetch"),
        SEND("raftline.request.send", "Time to hand the answer to gRPC (serialization and queueing for the network)");

        private final String meterName;
        private final String description;

        Phase(String meterName, String description) {
            this.meterName = meterName;
            this.description = description;
        }
    }

    public void recordPhase(String api, Phase phase, long nanos) {
        phases.computeIfAbsent(phase, p -> new ConcurrentHashMap<>()).computeIfAbsent(api, a -> Timer
            .builder(phase.meterName).tag("api", a).description(phase.description).publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofNanos(10_000)).maximumExpectedValue(Duration.ofSeconds(30))
            .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    public void recordLatency(String api, long nanos) {
        latency.computeIfAbsent(api, a -> Timer.builder("raftline.request.latency").tag("api", a)
            .description("Request latency per API")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(30))
            .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    public void isrChanged(int shrinks, int expands) {
        if (shrinks > 0) {
            isrShrinks.increment(shrinks);
        }
        if (expands > 0) {
            isrExpands.increment(expands);
        }
    }

    /** Where the group gauges read from at each {@link #refresh()}: the groups this broker coordinates. */
    public void setGroupSource(Supplier<List<GroupCoordinator.GroupSnapshot>> groups) {
        this.groupSource = groups;
    }

    /**
     * Exports the idle ratio of {@code pool} as {@code name}{tag=value}, measured over each refresh interval: the
     * request handlers' ({@code raftline.request.handler.idle.ratio}) or the network threads'
     * ({@code raftline.network.thread.idle.ratio}).
     */
    public void addIdleRatio(String name, String tag, String value, BusyTime pool) {
        IdleRatio ratio = new IdleRatio(pool, time);
        idleRatios.add(ratio);
        Gauge.builder(name, ratio, IdleRatio::value).tag(tag, value)
            .description("Share of the last refresh interval the pool's threads were idle (1: idle, 0: saturated)")
            .register(registry);
    }

    /** The broker's incremental fetch sessions (KIP-227): how many, their partitions, evictions, fetches by kind. */
    public void addFetchSessions(FetchSessionCache sessions) {
        Gauge.builder("raftline.fetch.sessions", sessions, FetchSessionCache::size)
            .description("Incremental fetch sessions (KIP-227) this broker holds; at most "
                + "max.incremental.fetch.session.cache.slots").register(registry);
        Gauge.builder("raftline.fetch.session.partitions", sessions, FetchSessionCache::cachedPartitions)
            .description("Partitions held over all fetch sessions").register(registry);
        FunctionCounter.builder("raftline.fetch.session.evictions", sessions, FetchSessionCache::evictions)
            .description("Fetch sessions evicted to make room for new ones").register(registry);
        for (boolean followers : new boolean[] {false, true}) {
            for (FetchSessionCache.Kind kind : FetchSessionCache.Kind.values()) {
                FunctionCounter.builder("raftline.fetch.session.requests", sessions, s -> s.requests(followers, kind))
                    .tag("kind", kind.name().toLowerCase(java.util.Locale.ROOT))
                    .tag("from", followers ? "follower" : "consumer")
                    .description("Fetches by what they were to the session cache: sessionless, full (creating a session "
                        + "when a slot is free), incremental, error (an unknown session or a wrong epoch)").register(registry);
            }
        }
    }

    /** Re-reads the groups coordinated here into the group gauges (partitions: {@link PartitionMetrics}), and the idle ratios. */
    public void refresh() {
        idleRatios.forEach(IdleRatio::sample);
        refreshGroups();
    }

    /**
     * When a group was last caught up on a partition, given when it was before ({@code null}: first seen now) and its
     * lag now: caught up now when the lag is 0, else unchanged. A partition first seen behind counts from now, so its
     * lag in time starts at 0 and grows by the refresh interval (the figure's resolution).
     */
    static long caughtUpSince(Long previousMs, long lagRecords, long nowMs) {
        if (lagRecords <= 0 || previousMs == null) {
            return nowMs;
        }
        return Math.min(previousMs, nowMs);
    }

    /**
     * Members and lag of the groups coordinated here. The lag is the high watermark of this broker's replica of the
     * partition (the leader's, or a follower's slightly older one) minus the committed offset, never below 0; a
     * partition with no replica on this broker has no lag row here.
     */
    private void refreshGroups() {
        List<GroupCoordinator.GroupSnapshot> groups = groupSource.get();
        List<MultiGauge.Row<?>> members = new ArrayList<>();
        List<MultiGauge.Row<?>> lags = new ArrayList<>();
        List<MultiGauge.Row<?>> lagTimes = new ArrayList<>();
        long nowMs = time.milliseconds();
        Map<Tags, Long> caughtUp = new HashMap<>();
        List<MultiGauge.Row<?>> states = new ArrayList<>();
        List<MultiGauge.Row<?>> rebalances = new ArrayList<>();
        List<MultiGauge.Row<?>> rebalanceTimes = new ArrayList<>();
        for (GroupCoordinator.GroupSnapshot g : groups) {
            states.add(MultiGauge.Row.of(Tags.of("group", g.groupId(), "state", g.state()), 1));
            rebalances.add(MultiGauge.Row.of(Tags.of("group", g.groupId()), g.rebalances()));
            if (g.lastRebalanceMs() >= 0) {
                rebalanceTimes.add(MultiGauge.Row.of(Tags.of("group", g.groupId()), g.lastRebalanceMs() / 1000.0));
            }
            members.add(MultiGauge.Row.of(Tags.of("group", g.groupId()), g.members()));
            for (GroupCoordinator.CommittedPosition c : g.committed()) {
                Optional<Partition> p = replicaManager.partition(new TopicPartition(c.topic(), c.partition()));
                if (p.isEmpty() || p.get().log() == null) {
                    continue;
                }
                long lag = Math.max(0, p.get().highWatermark() - c.offset());
                Tags tags = Tags.of("group", g.groupId(), "topic", c.topic(), "partition", Integer.toString(c.partition()));
                lags.add(MultiGauge.Row.of(tags, lag));
                long since = caughtUpSince(groupCaughtUpMs.get(tags), lag, nowMs);
                caughtUp.put(tags, since);
                lagTimes.add(MultiGauge.Row.of(tags, (nowMs - since) / 1000.0));
            }
        }
        groupMembers.register(members, true);
        groupLag.register(lags, true);
        groupLagSeconds.register(lagTimes, true);
        groupState.register(states, true);
        groupRebalances.register(rebalances, true);
        groupRebalanceSeconds.register(rebalanceTimes, true);
        groupCaughtUpMs = caughtUp;
        groupCount = groups.size();
    }
}
