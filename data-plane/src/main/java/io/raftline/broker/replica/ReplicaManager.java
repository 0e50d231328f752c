package io.raftline.broker.replica;

import com.google.protobuf.ByteString;
import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogConfig;
import io.raftline.broker.log.LogException;
import io.raftline.broker.log.LogManager;
import io.raftline.common.Time;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.BrokerRegistration;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.metadata.image.TopicIdPartition;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.AlterPartitionRequest;
import io.raftline.protocol.controller.AlterPartitionResponse;
import io.raftline.protocol.controller.OfflineReplica;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's replicas: which partitions it holds, in which role, and the produce and ISR paths over them.
 * Roles come only from the metadata ({@link #applyDelta}, on the metadata thread); produce requests append to
 * leaders; the fetch path lives in {@link FetchManager}; followers are fed by {@link ReplicaFetcherManager}.
 */
public final class ReplicaManager implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaManager.class);

    /** One partition's answer to a produce. */
    public record ProduceResult(ErrorCode error, String message, long baseOffset, long logAppendTimeMs,
                                long logStartOffset, long recordCount) {
        public static ProduceResult failed(ErrorCode code, String message) {
            return new ProduceResult(code, message, -1, -1, -1, 0);
        }
    }

    private final int brokerId;
    private final Time time;
    private final LogManager logManager;
    private final Map<String, String> brokerLogDefaults;
    private final ScheduledExecutorService scheduler;
    private final AlterPartitionSender alterPartition;
    private final LongSupplier brokerEpoch;
    private final long replicaLagTimeMaxMs;
    private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    /** Replicas assigned here for which no online log dir was left to create the log in. */
    private final Map<TopicPartition, Uuid> unplaceable = new ConcurrentHashMap<>();
    private final FetchManager fetchManager;
    private final ReplicationQuotas quotas;
    private final ReplicaFetcherManager fetcherManager;
    private volatile MetadataImage image = MetadataImage.EMPTY;
    private volatile boolean fenced;
    private final AtomicBoolean isrCheckQueued = new AtomicBoolean();
    /** The period of the ISR check (shrinks, and expansions a fetch did not trigger). */
    private final long isrCheckMs;
    private volatile IsrChangeListener isrListener = (shrinks, expands) -> { };

    /** Told of each ISR change the controller accepted (for the shrink/expand counters). */
    @FunctionalInterface
    public interface IsrChangeListener {
        void onIsrChange(int removed, int added);
    }

    public void setIsrChangeListener(IsrChangeListener listener) {
        this.isrListener = listener;
    }

    /** Told of what the followers on this broker appended from their leaders (the replication-in counters). */
    @FunctionalInterface
    public interface ReplicatedListener {
        void onReplicated(String topic, long bytes, long records);
    }

    private volatile ReplicatedListener replicatedListener = (topic, bytes, records) -> { };

    public void setReplicatedListener(ReplicatedListener listener) {
        this.replicatedListener = listener;
    }

    void followerAppended(String topic, long bytes, long records) {
        replicatedListener.onReplicated(topic, bytes, records);
    }

    /** Told when this broker takes or loses the leadership of a partition (the group coordinator loads on it). */
    public interface LeadershipListener {
        void onBecomeLeader(TopicPartition tp, int leaderEpoch);

        void onResign(TopicPartition tp);
    }

    private final List<LeadershipListener> leadershipListeners = new CopyOnWriteArrayList<>();

    public void addLeadershipListener(LeadershipListener listener) {
        leadershipListeners.add(listener);
    }

    public ReplicaManager(int brokerId, Time time, LogManager logManager, Map<String, String> brokerLogDefaults,
                          ScheduledExecutorService scheduler, AlterPartitionSender alterPartition, LongSupplier brokerEpoch,
                          long replicaLagTimeMaxMs, ReplicaFetcherManager.Settings fetcherSettings) {
        this.brokerId = brokerId;
        this.time = time;
        this.logManager = logManager;
        this.brokerLogDefaults = brokerLogDefaults;
        this.scheduler = scheduler;
        this.alterPartition = alterPartition;
        this.brokerEpoch = brokerEpoch;
        this.replicaLagTimeMaxMs = replicaLagTimeMaxMs;
        this.isrCheckMs = Math.max(50, Math.min(replicaLagTimeMaxMs / 2, 2_500));
        this.quotas = new ReplicationQuotas(brokerId, time, brokerLogDefaults);
        this.fetchManager = new FetchManager(this, scheduler, quotas);
        this.fetcherManager = new ReplicaFetcherManager(brokerId, this, fetcherSettings, time, quotas);
    }

    /** How long the controller has been silent (ms), and the broker session after which that counts (0: never). */
    private volatile LongSupplier controllerSilenceMs = () -> 0L;
    private volatile long sessionTimeoutMs;

    /**
     * Lets leaders refuse writes once the controller has been silent for longer than {@code sessionTimeoutMs} and an
     * ISR follower stopped fetching ({@link Partition#refusesWrites}); call before {@link #startup}.
     */
    public void refuseWritesWhenCutOff(LongSupplier msSinceControllerAnswer, long sessionTimeout) {
        this.controllerSilenceMs = msSinceControllerAnswer;
        this.sessionTimeoutMs = sessionTimeout;
    }

    public void startup() {
        scheduler.scheduleWithFixedDelay(this::maybeChangeIsr, isrCheckMs, isrCheckMs, TimeUnit.MILLISECONDS);
        if (sessionTimeoutMs > 0) {
            long every = Math.max(50, sessionTimeoutMs / 4);
            scheduler.scheduleWithFixedDelay(this::failWritesWhenCutOff, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /** Answers the acks=all produces waiting on leaders that refuse writes (see {@link #refuseWritesWhenCutOff}). */
    private void failWritesWhenCutOff() {
        try {
            long silence = controllerSilenceMs.getAsLong();
            if (silence <= sessionTimeoutMs) {
                return;
            }
            for (Map.Entry<TopicPartition, Partition> e : partitions.entrySet()) {
                Partition p = e.getValue();
                if (p.refusesWrites(silence, sessionTimeoutMs)) {
                    int failed = p.failCommitWaiters(ErrorCode.NOT_LEADER);
                    if (failed > 0) {
                        LOG.warn("{}: no answer from the controller for {} ms and the ISR stopped fetching: {} acks=all "
                            + "produce(s) answered NOT_LEADER_OR_FOLLOWER, as this broker may no longer lead it", e.getKey(), silence,
                            failed);
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("checking for writes to refuse failed", e);
        }
    }

    /**
     * Records a follower's fetch of a partition this broker leads; when it makes the follower eligible to join the
     * ISR, the ISR check runs now rather than at its next period (a restarted broker rejoins as soon as it has
     * caught up). Runs on the fetch path: the check itself goes to the scheduler, at most one queued at a time.
     */
    void onFollowerFetch(Partition partition, FetchCheck.Fetch fetch, long registeredBrokerEpoch) {
        if (partition.updateFollowerFetchState(fetch, registeredBrokerEpoch, isrCheckMs)) {
            checkIsrSoon();
        }
    }

    /** Runs the ISR check on the scheduler now (at most one queued at a time). */
    private void checkIsrSoon() {
        if (isrCheckQueued.compareAndSet(false, true)) {
            try {
                scheduler.execute(() -> {
                    isrCheckQueued.set(false);
                    maybeChangeIsr();
                });
            } catch (RejectedExecutionException e) {
                isrCheckQueued.set(false); // shutting down
            }
        }
    }

    public int brokerId() {
        return brokerId;
    }

    /** This broker's epoch from its registration (-1 while unregistered): its follower fetches carry it. */
    long localBrokerEpoch() {
        return brokerEpoch.getAsLong();
    }

    /** The epoch broker {@code id} is registered with in the current image, -1 if it is not registered. */
    long registeredBrokerEpoch(int id) {
        return image.broker(id).map(BrokerRegistration::epoch).orElse(-1L);
    }

    /**
     * The broker epoch a follower must have fetched with to be proposed for an ISR: its registered epoch while its
     * broker is active in this broker's metadata, and none while it is fenced or shutting down (the controller would
     * refuse it, and a refusal holds the partition's next proposal back for a whole ISR check period, as Kafka's
     * KIP-841 leader does not propose them either). When the broker turns active, {@link #applyDelta} runs the check.
     */
    private static long joinableBrokerEpoch(MetadataImage image, int id) {
        return image.broker(id).filter(BrokerRegistration::active).map(BrokerRegistration::epoch).orElse(Long.MIN_VALUE);
    }

    public FetchManager fetchManager() {
        return fetchManager;
    }

    public MetadataImage image() {
        return image;
    }

    public Optional<Partition> partition(TopicPartition tp) {
        return Optional.ofNullable(partitions.get(tp));
    }

    public Collection<Partition> partitions() {
        return partitions.values();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Metadata

    /**
     * Applies a metadata change: takes the leader or follower role for every partition of this broker whose
     * registration changed, and drops the replicas that left it. Runs on the metadata thread only.
     */
    public void applyDelta(MetadataDelta delta, MetadataImage newImage) {
        this.image = newImage;
        quotas.update(newImage);
        for (Map.Entry<TopicIdPartition, MetadataDelta.Change<PartitionRegistration>> e : delta.changedPartitions().entrySet()) {
            TopicIdPartition tip = e.getKey();
            PartitionRegistration after = e.getValue().after();
            TopicImage topic = newImage.topic(tip.topicId())
                .orElseGet(() -> delta.removedTopics().get(tip.topicId()));
            if (topic == null) {
                continue;
            }
            TopicPartition tp = new TopicPartition(topic.name(), tip.partition());
            if (after == null || !after.replicas().contains(brokerId)) {
                removeReplica(tp, after == null);
            } else {
                becomeLeaderOrFollower(tp, topic, after, newImage);
            }
        }
        for (TopicImage removed : delta.removedTopics().values()) {
            for (int p : removed.partitions().keySet()) {
                removeReplica(new TopicPartition(removed.name(), p), true);
            }
        }
        if (!delta.changedConfigs().isEmpty()) {
            for (Partition partition : partitions.values()) {
                Log log = partition.log();
                if (log != null) {
                    log.updateConfig(logConfig(partition.topicPartition().topic(), newImage));
                }
            }
        }
        fenced = newImage.broker(brokerId).map(b -> b.fenced()).orElse(true);
        boolean brokerTurnedActive = delta.changedBrokers().values().stream().anyMatch(c -> c.after() != null
            && c.after().active() && (c.before() == null || !c.before().active()));
        if (brokerTurnedActive) {
            // Its followers may have caught up while it was fenced: propose them now, not at the next period.
            checkIsrSoon();
        }
    }

    /**
     * Deletes the logs on disk whose topic is no longer in the metadata (deleted while this broker was down), or
     * whose topic id differs (the name was re-created), or is unknown (partition.metadata missing or torn: only a
     * crash before the log's first flush leaves that, so it held nothing durable; see PartitionMetadataFile): run once
     * the first metadata image is in, before any replica is served.
     */
    public void deleteStrayLogs(MetadataImage current) {
        for (Log log : new ArrayList<>(logManager.allLogs())) {
            Optional<TopicImage> topic = current.topic(log.topic());
            boolean stray = topic.isEmpty()
                || log.topicId() == null
                || !Uuid.fromBytes(log.topicId()).equals(topic.get().id())
                || topic.get().partition(log.partition()) == null
                || !topic.get().partition(log.partition()).replicas().contains(brokerId);
            if (stray) {
                LOG.info("deleting stray log {}-{}: its topic is gone or was re-created, or its topic id is unknown", log.topic(),
                    log.partition());
                logManager.deleteLog(log.topic(), log.partition());
            }
        }
    }

    private void becomeLeaderOrFollower(TopicPartition tp, TopicImage topic, PartitionRegistration reg, MetadataImage img) {
        Partition partition = partitions.computeIfAbsent(tp, k -> {
            Partition p = new Partition(k, brokerId, time);
            p.setOnDataChange(() -> fetchManager.onDataChange(k));
            return p;
        });
        LogConfig config = logConfig(tp.topic(), img);
        Log log;
        try {
            log = logManager.getOrCreateLog(tp.topic(), tp.partition(), topic.id().bytes(), config);
        } catch (LogException e) {
            if (e.code() != ErrorCode.STORAGE_ERROR) {
                throw e;
            }
            LOG.error("{}: no usable log dir for this replica: {}", tp, e.getMessage());
            unplaceable.put(tp, topic.id());
            stopServingOffline(tp, partition, reg);
            return;
        }
        unplaceable.remove(tp);
        if (log.isOffline()) {
            stopServingOffline(tp, partition, reg);
            return;
        }
        if (partition.log() == null) {
            partition.loadProducerState(log);
        }
        long checkpointedHw = log.highWatermark();
        if (reg.leader() == brokerId) {
            fetcherManager.removePartition(tp);
            if (partition.makeLeader(topic.id(), reg, log, checkpointedHw)) {
                LOG.info("{}: now leader at epoch {} with ISR {} (log end {})", tp, reg.leaderEpoch(), reg.isr(),
                    log.logEndOffset());
                leadershipListeners.forEach(l -> l.onBecomeLeader(tp, reg.leaderEpoch()));
            }
        } else {
            boolean wasLeader = partition.isLeader();
            boolean changed = partition.makeFollower(topic.id(), reg, log, checkpointedHw);
            if (wasLeader) {
                leadershipListeners.forEach(l -> l.onResign(tp));
            }
            if (reg.leader() == PartitionRegistration.NO_LEADER) {
                fetcherManager.removePartition(tp);
                if (changed) {
                    LOG.info("{}: no leader at epoch {}; waiting", tp, reg.leaderEpoch());
                }
            } else if (changed) {
                LOG.info("{}: now follower of broker {} at epoch {}", tp, reg.leader(), reg.leaderEpoch());
                img.broker(reg.leader()).ifPresent(leader ->
                    fetcherManager.addPartition(tp, topic.id(), leader, reg.leaderEpoch(), partition));
            }
        }
    }

    /**
     * A replica whose log dir is offline: it neither fetches nor keeps a leadership the controller moved away (while
     * it still leads, appends fail with STORAGE_ERROR); the heartbeat reports it so the controller moves it out.
     */
    private void stopServingOffline(TopicPartition tp, Partition partition, PartitionRegistration reg) {
        fetcherManager.removePartition(tp);
        if (partition.isLeader() && reg.leader() != brokerId) {
            partition.close();
            leadershipListeners.forEach(l -> l.onResign(tp));
            fetchManager.onDataChange(tp);
            LOG.info("{}: resigned; its log dir is offline and the leadership moved to broker {}", tp, reg.leader());
        }
    }

    /** A log dir went offline: its replicas stop fetching. Call off the I/O path (not under a log's lock). */
    public void onLogDirOffline(String dir) {
        for (Partition partition : partitions.values()) {
            Log log = partition.log();
            if (log != null && log.isOffline()) {
                fetcherManager.removePartition(partition.topicPartition());
                fetchManager.onDataChange(partition.topicPartition());
            }
        }
        LOG.warn("broker {}: log dir {} is offline; {} replicas are in offline dirs", brokerId, dir, offlineReplicas().size());
    }

    /**
     * Every replica of this broker that cannot serve because of storage: its log is in an offline dir, or no online
     * dir was left to create it in. The heartbeat sends this set to the controller.
     */
    public List<OfflineReplica> offlineReplicas() {
        List<OfflineReplica> out = new ArrayList<>();
        // A log goes offline only with its whole dir (LogManager takes the dir offline on a log's first I/O error),
        // so while every dir is online no log need be looked at: this runs at every heartbeat, over every replica.
        if (!logManager.offlineDirs().isEmpty()) {
            for (Partition partition : partitions.values()) {
                TopicPartition tp = partition.topicPartition();
                Log log = logManager.getLog(tp.topic(), tp.partition()).orElse(null);
                Uuid id = partition.topicId() != null ? partition.topicId()
                    : image.topic(tp.topic()).map(TopicImage::id).orElse(null);
                if (log != null && log.isOffline() && id != null) {
                    out.add(OfflineReplica.newBuilder().setTopicId(ByteString.copyFrom(id.bytes()))
                        .setPartition(tp.partition()).build());
                }
            }
        }
        unplaceable.forEach((tp, id) -> out.add(OfflineReplica.newBuilder().setTopicId(ByteString.copyFrom(id.bytes()))
            .setPartition(tp.partition()).build()));
        return out;
    }

    private void removeReplica(TopicPartition tp, boolean deleteLog) {
        unplaceable.remove(tp);
        Partition partition = partitions.remove(tp);
        fetcherManager.removePartition(tp);
        if (partition != null) {
            boolean wasLeader = partition.isLeader();
            partition.close();
            if (wasLeader) {
                leadershipListeners.forEach(l -> l.onResign(tp));
            }
            fetchManager.onDataChange(tp);
            LOG.info("{}: replica removed from this broker{}", tp, deleteLog ? " (topic deleted)" : "");
        }
        if (logManager.getLog(tp.topic(), tp.partition()).isPresent()) {
            logManager.deleteLog(tp.topic(), tp.partition());
        }
    }

    LogConfig logConfig(String topic, MetadataImage img) {
        return LogConfig.fromProperties(brokerLogDefaults, img.configs(io.raftline.metadata.image.ConfigResource.topic(topic)));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Produce

    /**
     * Appends to each partition as leader and answers once each append is as durable as {@code acks} asks:
     * 0 and 1 after the local append, -1 (all) once the high watermark passes it or {@code timeoutMs} elapses.
     * Every partition gets its own answer: a failure in one (an unexpected exception included, answered UNKNOWN)
     * does not keep the others from being appended and answered, and the returned future always completes.
     */
    public CompletableFuture<Map<TopicPartition, ProduceResult>> appendRecords(int acks, int timeoutMs,
                                                                               Map<TopicPartition, ByteBuffer> data) {
        Map<TopicPartition, CompletableFuture<ProduceResult>> futures = new HashMap<>();
        for (Map.Entry<TopicPartition, ByteBuffer> e : data.entrySet()) {
            CompletableFuture<ProduceResult> one;
            try {
                one = appendOne(e.getKey(), e.getValue(), acks, timeoutMs);
            } catch (RuntimeException unexpected) {
                LOG.error("{}: produce failed unexpectedly", e.getKey(), unexpected);
                one = CompletableFuture.completedFuture(ProduceResult.failed(ErrorCode.UNKNOWN,
                    "the broker failed to append to " + e.getKey() + ": " + unexpected));
            }
            futures.put(e.getKey(), one);
        }
        return CompletableFuture.allOf(futures.values().toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            Map<TopicPartition, ProduceResult> out = new HashMap<>();
            futures.forEach((tp, f) -> out.put(tp, f.join()));
            return out;
        });
    }

    private CompletableFuture<ProduceResult> appendOne(TopicPartition tp, ByteBuffer records, int acks, int timeoutMs) {
        Partition partition = partitions.get(tp);
        if (partition == null) {
            return CompletableFuture.completedFuture(notHere(tp));
        }
        if (fenced) {
            return CompletableFuture.completedFuture(ProduceResult.failed(ErrorCode.NOT_LEADER,
                "broker " + brokerId + " is fenced by the controller"));
        }
        if (sessionTimeoutMs > 0) {
            long silence = controllerSilenceMs.getAsLong();
            // only a broker the controller stopped answering looks at the partition (and takes its lock)
            if (silence > sessionTimeoutMs && partition.refusesWrites(silence, sessionTimeoutMs)) {
                return CompletableFuture.completedFuture(ProduceResult.failed(ErrorCode.NOT_LEADER, "broker " + brokerId
                    + " has had no answer from the controller for " + silence + " ms and the ISR of " + tp
                    + " stopped fetching: it may no longer lead it"));
            }
        }
        Partition.AppendResult appended;
        try {
            appended = partition.appendAsLeader(records, acks);
        } catch (ReplicaException e) {
            return CompletableFuture.completedFuture(ProduceResult.failed(e.code(), e.getMessage()));
        } catch (io.raftline.broker.log.LogException e) {
            return CompletableFuture.completedFuture(ProduceResult.failed(e.code(), e.getMessage()));
        }
        ProduceResult ok = new ProduceResult(ErrorCode.NONE, null, appended.firstOffset(), appended.logAppendTimeMs(),
            appended.logStartOffset(), appended.recordCount());
        if (acks != -1) {
            return CompletableFuture.completedFuture(ok);
        }
        CompletableFuture<ProduceResult> result = new CompletableFuture<>();
        CompletableFuture<ErrorCode> committed = partition.awaitCommitted(appended.lastOffset());
        var timeout = scheduler.schedule(() -> {
            result.complete(ProduceResult.failed(ErrorCode.REQUEST_TIMED_OUT,
                "the ISR of " + tp + " did not replicate offset " + appended.lastOffset() + " within " + timeoutMs + " ms"));
            partition.forgetCommitWaiter(appended.lastOffset(), committed);
        }, timeoutMs, TimeUnit.MILLISECONDS);
        committed.whenComplete((code, err) -> {
            timeout.cancel(false);
            if (code == ErrorCode.NONE) {
                result.complete(ok);
            } else {
                result.complete(ProduceResult.failed(code, code == ErrorCode.NOT_LEADER
                    ? "broker " + brokerId + " lost the leadership of " + tp + " before the records were replicated"
                    : "the ISR of " + tp + " shrank below min.insync.replicas after the append"));
            }
        });
        return result;
    }

    /** A partition's answer to delete-records: the low watermark, or the error ({@code lowWatermark} -1). */
    public record DeleteRecordsResult(ErrorCode error, String message, long lowWatermark) {
    }

    /**
     * Deletes the records of {@code tp} below {@code offset} (-1: the high watermark) as its leader (see
     * {@link Partition#deleteRecordsBefore}), then waits up to {@code timeoutMs} for the ISR's log start offsets to
     * follow ({@link Partition#awaitLowWatermark}). On a timeout the leader's log start offset has moved all the
     * same (durably); the answer is REQUEST_TIMED_OUT and a retry waits again.
     */
    public CompletableFuture<DeleteRecordsResult> deleteRecords(TopicPartition tp, long offset, int timeoutMs) {
        Partition partition = partitions.get(tp);
        if (partition == null) {
            ProduceResult why = notHere(tp);
            return CompletableFuture.completedFuture(new DeleteRecordsResult(why.error(), why.message(), -1));
        }
        long target;
        try {
            target = partition.deleteRecordsBefore(offset);
        } catch (ReplicaException e) {
            return CompletableFuture.completedFuture(new DeleteRecordsResult(e.code(), e.getMessage(), -1));
        } catch (io.raftline.broker.log.LogException e) {
            return CompletableFuture.completedFuture(new DeleteRecordsResult(e.code(), e.getMessage(), -1));
        }
        CompletableFuture<DeleteRecordsResult> result = new CompletableFuture<>();
        CompletableFuture<Long> followed = partition.awaitLowWatermark(target);
        var timeout = scheduler.schedule(() -> {
            result.complete(new DeleteRecordsResult(ErrorCode.REQUEST_TIMED_OUT, "the ISR of " + tp
                + " did not delete the records below " + target + " within " + timeoutMs + " ms", -1));
            partition.forgetDeleteWaiter(followed);
        }, timeoutMs, TimeUnit.MILLISECONDS);
        followed.whenComplete((low, err) -> {
            timeout.cancel(false);
            if (err == null) {
                result.complete(new DeleteRecordsResult(ErrorCode.NONE, null, low));
            } else {
                ErrorCode code = err instanceof ReplicaException re ? re.code() : ErrorCode.UNKNOWN;
                result.complete(new DeleteRecordsResult(code, err.getMessage(), -1));
            }
        });
        return result;
    }

    public ProduceResult notHere(TopicPartition tp) {
        Optional<TopicImage> topic = image.topic(tp.topic());
        if (topic.isEmpty() || topic.get().partition(tp.partition()) == null) {
            return ProduceResult.failed(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "this broker does not host " + tp);
        }
        return ProduceResult.failed(ErrorCode.NOT_LEADER, "broker " + brokerId + " is not the leader of " + tp);
    }

    // ---------------------------------------------------------------------------------------------------------
    // ISR

    /**
     * At most this many partitions in one AlterPartition request: one Raft entry of their changes stays far below
     * the controller's 8 MiB limit per entry (an ISR change record is well under 100 bytes).
     */
    static final int MAX_PARTITIONS_PER_ALTER = 5_000;

    /**
     * Proposes every ISR change this broker's leaders want now and sends them to the controller in one
     * AlterPartition request (one Raft entry there, however many partitions: a restarted follower rejoining a
     * thousand ISRs costs one round, not a thousand). Package-private for tests.
     */
    void maybeChangeIsr() {
        try {
            List<PartitionState.IsrChange> changes = new ArrayList<>();
            List<Partition> owners = new ArrayList<>();
            // One image for the whole check: a broker turning active while it runs is seen by every partition or by
            // none (applyDelta then runs another check), so its followers are proposed together, in one request.
            MetadataImage current = image;
            for (Partition partition : partitions.values()) {
                partition.proposeIsrChange(replicaLagTimeMaxMs, id -> joinableBrokerEpoch(current, id)).ifPresent(change -> {
                    changes.add(change);
                    owners.add(partition);
                });
            }
            for (int from = 0; from < changes.size(); from += MAX_PARTITIONS_PER_ALTER) {
                int to = Math.min(changes.size(), from + MAX_PARTITIONS_PER_ALTER);
                sendIsrChanges(owners.subList(from, to), changes.subList(from, to));
            }
        } catch (RuntimeException e) {
            LOG.warn("ISR check failed", e);
        }
    }

    private void sendIsrChanges(List<Partition> owners, List<PartitionState.IsrChange> changes) {
        AlterPartitionRequest.Builder request = AlterPartitionRequest.newBuilder()
            .setBrokerId(brokerId)
            .setBrokerEpoch(brokerEpoch.getAsLong());
        for (int i = 0; i < changes.size(); i++) {
            Partition partition = owners.get(i);
            PartitionState.IsrChange change = changes.get(i);
            LOG.info("{}: asking the controller to change the ISR from {} to {} ({})", partition.topicPartition(),
                partition.isr(), change.newIsr(), change.reason());
            request.addPartitions(AlterPartitionRequest.PartitionIsr.newBuilder()
                .setTopicId(ByteString.copyFrom(partition.topicId().bytes()))
                .setPartition(partition.topicPartition().partition())
                .setLeaderEpoch(change.leaderEpoch())
                .setPartitionEpoch(change.partitionEpoch())
                .addAllNewIsr(change.newIsr())
                .addAllNewIsrBrokerEpochs(change.newIsrBrokerEpochs()));
        }
        AlterPartitionRequest sent = request.build();
        alterPartition.send(sent).whenComplete((response, err) -> {
            for (int i = 0; i < changes.size(); i++) {
                Partition partition = owners.get(i);
                PartitionState.IsrChange change = changes.get(i);
                try {
                    isrChangeAnswered(partition, change, err == null ? resultFor(response, i, sent.getPartitions(i)) : null,
                        response, err);
                } catch (RuntimeException e) {
                    LOG.warn("{}: handling the controller's answer to an ISR change failed", partition.topicPartition(), e);
                }
            }
        });
    }

    private void isrChangeAnswered(Partition partition, PartitionState.IsrChange change,
                                   AlterPartitionResponse.PartitionResult result, AlterPartitionResponse response,
                                   Throwable err) {
        if (err != null) {
            // No answer: the controller may still commit it. Kept in flight, sent again at the next check.
            LOG.warn("{}: ISR change got no answer: {}", partition.topicPartition(), err.toString());
            partition.isrChangeUnanswered(change);
            return;
        }
        if (result == null) {
            LOG.warn("{}: ISR change refused: {}", partition.topicPartition(), response.getError().getMessage());
            partition.completeIsrChange(change, List.of(), -1, false);
            return;
        }
        boolean ok = result.getError().getCode() == ErrorCode.NONE;
        if (!ok) {
            LOG.info("{}: controller refused the ISR change: {} {}", partition.topicPartition(),
                result.getError().getCode(), result.getError().getMessage());
        }
        partition.completeIsrChange(change, result.getIsrList(), result.getPartitionEpoch(), ok);
        if (ok) {
            // Counted against the ISR the proposal started from: the committed record often reaches this
            // broker's metadata (and its partition) before the controller's answer does.
            List<Integer> before = change.fromIsr();
            int removed = (int) before.stream().filter(r -> !result.getIsrList().contains(r)).count();
            int added = (int) result.getIsrList().stream().filter(r -> !before.contains(r)).count();
            isrListener.onIsrChange(removed, added);
            LOG.info("{}: ISR changed from {} to {} ({})", partition.topicPartition(), before, result.getIsrList(),
                change.reason());
        }
    }

    /**
     * The answer to {@code asked}, the {@code index}-th partition of a batched AlterPartition request, or null if the
     * response has none (the whole request was refused). The controller answers in the request's order.
     */
    private static AlterPartitionResponse.PartitionResult resultFor(AlterPartitionResponse response, int index,
                                                                    AlterPartitionRequest.PartitionIsr asked) {
        if (index < response.getPartitionsCount() && answers(response.getPartitions(index), asked)) {
            return response.getPartitions(index);
        }
        return response.getPartitionsList().stream().filter(r -> answers(r, asked)).findFirst().orElse(null);
    }

    private static boolean answers(AlterPartitionResponse.PartitionResult r, AlterPartitionRequest.PartitionIsr asked) {
        return r.getPartition() == asked.getPartition() && r.getTopicId().equals(asked.getTopicId());
    }

    // ---------------------------------------------------------------------------------------------------------

    ReplicaFetcherManager fetcherManager() {
        return fetcherManager;
    }

    @Override
    public void close() {
        fetcherManager.close();
        fetchManager.close();
        for (Partition partition : partitions.values()) {
            partition.close();
        }
    }
}
