package io.raftline.broker.replica;

import io.raftline.broker.log.EpochEndOffset;
import io.raftline.broker.log.FetchDataInfo;
import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogAppendInfo;
import io.raftline.broker.log.LogException;
import io.raftline.common.Time;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.protocol.ErrorCode;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import io.raftline.record.ValidationResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica of a partition on this broker: leader or follower, as the metadata says.
 *
 * <p>States: {@code NONE} (created, no role yet) → {@code LEADER} or {@code FOLLOWER} on each metadata change
 * with a new leader epoch; back to {@code NONE} when the replica leaves this broker (the partition is then
 * closed). A leader appends produced batches, tracks each follower's log end offset, advances the high watermark
 * to the minimum over the ISR (and any ISR change still in flight), completes acks=all produces once the high
 * watermark passes them, and proposes ISR shrinks and expands. A follower appends what it fetches from the
 * leader, at the leader's offsets, and takes the leader's high watermark.
 *
 * <p>Threading: every state change and every append happens under {@link #lock}. Readers (fetches) read the
 * volatile fields and the log, which is safe to read while appending.
 */
public final class Partition {

    private static final Logger LOG = LoggerFactory.getLogger(Partition.class);

    /** The outcome of a leader append, before acks=all waits for the high watermark. */
    /** {@code recordCount}: the records stored (0 for a retried batch found to be a duplicate). */
    public record AppendResult(long firstOffset, long lastOffset, long logAppendTimeMs, long logStartOffset, long recordCount) {
    }

    /** What a fetch reads from this replica. */
    public record ReadResult(ErrorCode error, String message, long highWatermark, long logStartOffset, long logEndOffset,
                             FetchDataInfo data, int divergingEpoch, long divergingEndOffset) {
        public boolean diverging() {
            return divergingEpoch >= 0;
        }
    }

    private static final int PRODUCER_STATE_SCAN_BYTES = 1 << 20;

    private record PendingAck(long requiredOffset, int minIsr, CompletableFuture<ErrorCode> future) {
    }

    /** A delete-records request waiting for the ISR's log start offsets to reach {@code offset}. */
    private record PendingDelete(long offset, CompletableFuture<Long> future) {
    }

    /** A delete-records waiter to complete, outside the lock, with the low watermark. */
    private record DeleteDone(CompletableFuture<Long> future, long lowWatermark) {
    }

    private final TopicPartition tp;
    private final int localBrokerId;
    private final Time time;
    private final Object lock = new Object();
    private final ProducerStateManager producerState = new ProducerStateManager();
    private final TreeMap<Long, List<PendingAck>> pendingAcks = new TreeMap<>();
    private final List<PendingDelete> pendingDeletes = new ArrayList<>();
    /**
     * Each follower's log start offset as its last counted fetch said, while this replica leads (delete-records waits
     * on the ISR's); guarded by the lock.
     */
    private final Map<Integer, Long> followerLogStartOffsets = new HashMap<>();

    private volatile Log log;
    private volatile Uuid topicId;
    private volatile boolean leader;
    private volatile int leaderId = -1;
    private volatile int leaderEpoch = -1;
    private volatile int partitionEpoch = -1;
    private volatile List<Integer> replicas = List.of();
    private volatile List<Integer> isr = List.of();
    private volatile long highWatermark;
    /**
     * The leader's decisions (high watermark, ISR, followers) while this replica leads, null otherwise; guarded by
     * the lock. Every transition is applied by {@link #applyLocked}, which copies the ISR and high watermark out.
     */
    private PartitionState state;
    private Runnable onDataChange = () -> { };

    public Partition(TopicPartition tp, int localBrokerId, Time time) {
        this.tp = tp;
        this.localBrokerId = localBrokerId;
        this.time = time;
    }

    public TopicPartition topicPartition() {
        return tp;
    }

    /** Called (outside the lock) whenever new data may be readable: a fetch waiting on this partition re-checks. */
    void setOnDataChange(Runnable listener) {
        this.onDataChange = listener;
    }

    public Log log() {
        return log;
    }

    public Uuid topicId() {
        return topicId;
    }

    public boolean isLeader() {
        return leader;
    }

    public int leaderId() {
        return leaderId;
    }

    public int leaderEpoch() {
        return leaderEpoch;
    }

    public int partitionEpoch() {
        return partitionEpoch;
    }

    public List<Integer> replicas() {
        return replicas;
    }

    public List<Integer> isr() {
        return isr;
    }

    public long highWatermark() {
        return highWatermark;
    }

    public long logEndOffset() {
        Log l = log;
        return l == null ? 0 : l.logEndOffset();
    }

    /**
     * Whether this leader's high watermark is still below the offset where its epoch started. Until it reaches it,
     * the high watermark it knows may lag the one its predecessor reported, so it does not answer "latest" or time
     * lookups to clients (OFFSET_NOT_AVAILABLE), as Kafka does.
     */
    public boolean highWatermarkBelowEpochStart() {
        synchronized (lock) {
            return leader && state != null && state.highWatermark() < state.epochStartOffset();
        }
    }

    public boolean underReplicated() {
        return leader && isr.size() < replicas.size();
    }

    public boolean underMinIsr() {
        Log l = log;
        return leader && l != null && isr.size() < l.config().minInsyncReplicas();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Role changes (from the metadata thread)

    /**
     * Takes the leader role for a new leader epoch, or refreshes the ISR within the same epoch. Returns true when
     * this was a new epoch.
     */
    public boolean makeLeader(Uuid id, PartitionRegistration reg, Log partitionLog, long initialHighWatermark) {
        List<DeleteDone> deletes;
        List<PendingAck> committed;
        List<PendingAck> failed;
        boolean newEpoch;
        synchronized (lock) {
            this.topicId = id;
            this.log = partitionLog;
            newEpoch = !leader || reg.leaderEpoch() != leaderEpoch;
            this.replicas = List.copyOf(reg.replicas());
            this.isr = List.copyOf(reg.isr());
            this.partitionEpoch = reg.partitionEpoch();
            this.leaderId = localBrokerId;
            long now = time.milliseconds();
            PartitionState.Transition t;
            if (newEpoch || state == null) {
                followerLogStartOffsets.clear();
                this.leaderEpoch = reg.leaderEpoch();
                this.leader = true;
                long epochStart = startEpochLocked(partitionLog, reg.leaderEpoch());
                // Never behind what this replica already knew was committed.
                t = PartitionState.becomeLeader(localBrokerId, reg.leaderEpoch(), reg.partitionEpoch(), reg.replicas(),
                    reg.isr(), partitionLog.logEndOffset(), epochStart, Math.max(highWatermark, initialHighWatermark), now);
            } else {
                t = state.refresh(reg.partitionEpoch(), reg.replicas(), reg.isr(), now);
            }
            committed = applyLocked(t);
            failed = failPendingIfNotEnoughIsrLocked();
            deletes = completeDeletesLocked();
        }
        completeCommitted(committed);
        completeAll(failed, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        completeDeletes(deletes);
        onDataChange.run();
        return newEpoch;
    }

    /**
     * Records in the log that this leader's epoch starts at its log end offset, and returns that offset. A log that
     * fails to record it has gone offline: its directory's handler takes it out of service, and meanwhile the role is
     * taken and appends fail with STORAGE_ERROR.
     */
    private long startEpochLocked(Log partitionLog, int epoch) {
        try {
            return partitionLog.assignEpochStartOffset(epoch);
        } catch (LogException e) {
            LOG.warn("{}: could not record the start of leader epoch {}: {}", tp, epoch, e.getMessage());
            return partitionLog.logEndOffset();
        }
    }

    /** Takes the follower role under {@code reg.leader()}; returns true when the leader or its epoch changed. */
    public boolean makeFollower(Uuid id, PartitionRegistration reg, Log partitionLog, long initialHighWatermark) {
        List<PendingAck> failed;
        List<PendingDelete> deletes;
        boolean changed;
        synchronized (lock) {
            this.topicId = id;
            this.log = partitionLog;
            changed = leader || reg.leaderEpoch() != leaderEpoch || reg.leader() != leaderId;
            this.replicas = List.copyOf(reg.replicas());
            this.isr = List.copyOf(reg.isr());
            this.partitionEpoch = reg.partitionEpoch();
            this.leaderEpoch = reg.leaderEpoch();
            this.leaderId = reg.leader();
            this.leader = false;
            this.state = null;
            followerLogStartOffsets.clear();
            setHighWatermarkLocked(Math.min(Math.max(highWatermark, initialHighWatermark), partitionLog.logEndOffset()));
            failed = drainPendingLocked();
            deletes = drainDeletesLocked();
        }
        completeAll(failed, ErrorCode.NOT_LEADER);
        failDeletes(deletes);
        return changed;
    }

    /** The replica leaves this broker or the broker stops: fail every waiter. */
    public void close() {
        List<PendingAck> failed;
        List<PendingDelete> deletes;
        synchronized (lock) {
            leader = false;
            state = null;
            failed = drainPendingLocked();
            deletes = drainDeletesLocked();
        }
        completeAll(failed, ErrorCode.NOT_LEADER);
        failDeletes(deletes);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Leader: produce

    /**
     * Appends produced batches as leader. Validates the bytes first, once, before anything reads a header (a corrupt
     * batch, a retried one included, is refused with the validator's code); then checks leadership, the ISR against
     * {@code min.insync.replicas} for acks=all, and the idempotent-producer sequence; a retried batch already stored
     * is answered with its original offsets and not stored again.
     *
     * @throws ReplicaException NOT_LEADER, NOT_ENOUGH_REPLICAS, INVALID_REQUEST or a producer-sequence error
     * @throws io.raftline.broker.log.LogException for bad input (CORRUPT_MESSAGE, ...) or an offline log
     */
    public AppendResult appendAsLeader(ByteBuffer records, int requiredAcks) {
        Log unlocked = log;
        if (!leader || unlocked == null) {
            throw new ReplicaException(ErrorCode.NOT_LEADER, "broker " + localBrokerId + " is not the leader of " + tp);
        }
        // Outside the lock: it reads only the request's bytes and the topic's max.message.bytes.
        ValidationResult validated = unlocked.validateAsLeader(records);
        AppendResult result;
        List<PendingAck> committed;
        synchronized (lock) {
            Log l = log;
            if (!leader || l == null) {
                throw new ReplicaException(ErrorCode.NOT_LEADER, "broker " + localBrokerId + " is not the leader of " + tp);
            }
            int minIsr = l.config().minInsyncReplicas();
            if (requiredAcks == -1 && !state.admitsAcksAll(minIsr)) {
                throw new ReplicaException(ErrorCode.NOT_ENOUGH_REPLICAS, "the ISR of " + tp + " has " + isr.size()
                    + " replica(s) " + isr + ", fewer than min.insync.replicas=" + minIsr);
            }
            List<RecordBatch> batches = new ArrayList<>();
            for (RecordBatch batch : Records.batches(records)) {
                batches.add(batch);
            }
            for (RecordBatch batch : batches) {
                ProducerStateManager.Check check = producerState.check(batch);
                if (check.isDuplicate()) {
                    if (batches.size() != 1) {
                        throw new ReplicaException(ErrorCode.INVALID_REQUEST,
                            "an idempotent producer's retried batch must travel alone");
                    }
                    ProducerStateManager.BatchMetadata stored = check.duplicateOf();
                    return new AppendResult(stored.firstOffset(), stored.lastOffset(), -1, l.logStartOffset(), 0);
                }
                if (check.error() != ErrorCode.NONE) {
                    throw new ReplicaException(check.error(), check.message());
                }
            }
            LogAppendInfo info = l.appendAsLeader(records, leaderEpoch, validated);
            for (RecordBatch batch : Records.batches(records)) {
                producerState.update(batch, batch.baseOffset(), batch.lastOffset());
            }
            committed = applyLocked(state.onLocalAppend(l.logEndOffset()));
            result = new AppendResult(info.firstOffset(), info.lastOffset(), info.logAppendTimeMs(), l.logStartOffset(),
                info.recordCount());
        }
        completeCommitted(committed);
        onDataChange.run();
        return result;
    }

    /**
     * Completes with NONE once the high watermark passes {@code lastOffset}, or with the reason it never will
     * (NOT_LEADER, NOT_ENOUGH_REPLICAS_AFTER_APPEND). The caller times it out.
     */
    public CompletableFuture<ErrorCode> awaitCommitted(long lastOffset) {
        CompletableFuture<ErrorCode> future = new CompletableFuture<>();
        synchronized (lock) {
            if (!leader) {
                future.complete(ErrorCode.NOT_LEADER);
            } else if (highWatermark > lastOffset) {
                future.complete(ErrorCode.NONE);
            } else {
                int minIsr = log.config().minInsyncReplicas();
                pendingAcks.computeIfAbsent(lastOffset + 1, k -> new ArrayList<>())
                    .add(new PendingAck(lastOffset + 1, minIsr, future));
            }
        }
        return future;
    }

    /**
     * Drops a waiter of {@link #awaitCommitted} that its produce gave up on (timed out), so a high watermark that
     * stays put cannot make the waiters pile up: the produce's answer was sent and nothing will read this one.
     */
    public void forgetCommitWaiter(long lastOffset, CompletableFuture<ErrorCode> future) {
        synchronized (lock) {
            List<PendingAck> acks = pendingAcks.get(lastOffset + 1);
            if (acks != null) {
                acks.removeIf(a -> a.future() == future);
                if (acks.isEmpty()) {
                    pendingAcks.remove(lastOffset + 1);
                }
            }
        }
    }

    /**
     * As leader, whether it refuses writes for having lost touch with the controller and its followers
     * ({@link PartitionState#refusesWrites}).
     */
    public boolean refusesWrites(long controllerSilenceMs, long sessionTimeoutMs) {
        synchronized (lock) {
            return leader && state != null && state.refusesWrites(time.milliseconds(), controllerSilenceMs, sessionTimeoutMs);
        }
    }

    /**
     * Answers every acks=all produce waiting here with {@code code} (they never commit on this leader as far as it can
     * tell; an idempotent producer's retry elsewhere is deduplicated by its sequence numbers). Returns how many.
     */
    public int failCommitWaiters(ErrorCode code) {
        List<CompletableFuture<ErrorCode>> failed = new ArrayList<>();
        synchronized (lock) {
            for (List<PendingAck> acks : pendingAcks.values()) {
                acks.forEach(a -> failed.add(a.future()));
            }
            pendingAcks.clear();
        }
        failed.forEach(f -> f.complete(code));
        return failed.size();
    }

    /** acks=all produces waiting for the high watermark (the produce purgatory of this partition). */
    public int commitWaiters() {
        synchronized (lock) {
            int n = 0;
            for (List<PendingAck> acks : pendingAcks.values()) {
                n += acks.size();
            }
            return n;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Leader: fetch

    /**
     * Reads for a consumer (up to the high watermark) or a follower (up to the log end offset), after the checks of
     * {@link FetchCheck} (the caller's leader epoch; a follower's identity, broker epoch and divergence).
     *
     * @param registeredBrokerEpoch the follower's broker epoch in this broker's metadata image, -1 if unregistered
     */
    public ReadResult read(FetchCheck.Fetch fetch, long registeredBrokerEpoch, int maxBytes) {
        Log l = log;
        if (!leader || l == null) {
            return error(ErrorCode.NOT_LEADER, "broker " + localBrokerId + " is not the leader of " + tp);
        }
        long hw = highWatermark;
        long logStart = l.logStartOffset();
        long logEnd = l.logEndOffset();
        FetchCheck.Outcome check = check(l, fetch, registeredBrokerEpoch, logStart, logEnd);
        if (check.error() == ErrorCode.OFFSET_OUT_OF_RANGE) {
            return new ReadResult(check.error(), tp + ": " + check.message(), hw, logStart, logEnd, null, -1, -1);
        }
        if (check.error() != ErrorCode.NONE) {
            return error(check.error(), tp + ": " + check.message());
        }
        if (check.diverging()) {
            return new ReadResult(ErrorCode.NONE, null, hw, logStart, logEnd, null, check.divergingEpoch(),
                check.divergingEndOffset());
        }
        long upTo = fetch.fromFollower() ? logEnd : hw;
        if (fetch.fetchOffset() >= upTo) {
            return new ReadResult(ErrorCode.NONE, null, hw, logStart, logEnd, null, -1, -1);
        }
        FetchDataInfo data = l.read(fetch.fetchOffset(), maxBytes, upTo, true);
        return new ReadResult(ErrorCode.NONE, null, hw, logStart, logEnd, data, -1, -1);
    }

    private FetchCheck.Outcome check(Log l, FetchCheck.Fetch fetch, long registeredBrokerEpoch, long logStart, long logEnd) {
        return FetchCheck.decide(fetch, new FetchCheck.Leader(localBrokerId, leaderEpoch, replicas, logStart, logEnd),
            registeredBrokerEpoch, endOfLastFetchedEpoch(l, fetch));
    }

    /** The leader's end of the epoch a follower last fetched in, which {@link FetchCheck} compares with its offset. */
    private static Optional<EpochEndOffset> endOfLastFetchedEpoch(Log l, FetchCheck.Fetch fetch) {
        return fetch.fromFollower() && fetch.lastFetchedEpoch() >= 0
            ? l.endOffsetForEpoch(fetch.lastFetchedEpoch()) : Optional.empty();
    }

    /**
     * Records a follower's fetch position if {@link FetchCheck} says the fetch may move it (the follower is a replica
     * with its registered broker epoch, at this leader's epoch, its log not diverging); may advance the high
     * watermark. Returns true when this fetch makes a follower outside the ISR eligible to join it (so the caller
     * proposes the expansion now, as Kafka does on the fetch path, instead of at the next periodic ISR check); false
     * while an ISR change is in flight or within {@code refusalBackoffMs} of the controller refusing one (so a fenced
     * follower does not send one per fetch).
     */
    public boolean updateFollowerFetchState(FetchCheck.Fetch fetch, long registeredBrokerEpoch, long refusalBackoffMs) {
        List<DeleteDone> deletes;
        List<PendingAck> committed;
        boolean advanced;
        boolean joinable;
        synchronized (lock) {
            Log l = log;
            if (!leader || state == null || l == null) {
                return false;
            }
            PartitionState before = state;
            PartitionState.Transition t = state.onFollowerFetch(new PartitionState.FollowerFetch(fetch, registeredBrokerEpoch,
                endOfLastFetchedEpoch(l, fetch), l.logStartOffset()), time.milliseconds(), refusalBackoffMs);
            committed = applyLocked(t);
            advanced = t.effects().advancedHighWatermark();
            joinable = t.effects().expandNow();
            // a fetch the state does not count leaves it as it was
            if (t.state() != before && fetch.logStartOffset() >= 0) {
                followerLogStartOffsets.put(fetch.replicaId(), fetch.logStartOffset());
            }
            deletes = completeDeletesLocked();
        }
        completeCommitted(committed);
        completeDeletes(deletes);
        if (advanced) {
            onDataChange.run();
        }
        return joinable;
    }

    /** Moves the high watermark (never back while leader) and tells the log, which persists and honours it. */
    private void setHighWatermarkLocked(long hw) {
        highWatermark = hw;
        if (log != null) {
            log.updateHighWatermark(hw);
        }
    }

    /**
     * Takes a transition of the leader's state: copies its ISR, partition epoch and high watermark out for the
     * readers, and returns the acks=all waiters it made committable; the caller completes them with
     * {@link #completeCommitted} once it has released the lock, so no produce response is sent while the partition is
     * locked. The log hears of a new high watermark here.
     */
    private List<PendingAck> applyLocked(PartitionState.Transition t) {
        state = t.state();
        isr = state.isr();
        partitionEpoch = state.partitionEpoch();
        if (state.highWatermark() != highWatermark) {
            setHighWatermarkLocked(state.highWatermark());
        }
        return t.effects().advancedHighWatermark() ? completeUpToLocked(highWatermark) : List.of();
    }

    /** Completes committed waiters: NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR shrank below their minimum. */
    private void completeCommitted(List<PendingAck> committed) {
        int isrSize = isr.size();
        for (PendingAck ack : committed) {
            ack.future().complete(isrSize >= ack.minIsr() ? ErrorCode.NONE : ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        }
    }

    private List<PendingAck> completeUpToLocked(long hw) {
        List<PendingAck> done = new ArrayList<>();
        var head = pendingAcks.headMap(hw, true);
        for (List<PendingAck> acks : head.values()) {
            done.addAll(acks);
        }
        head.clear();
        return done;
    }

    private List<PendingAck> drainPendingLocked() {
        List<PendingAck> all = new ArrayList<>();
        pendingAcks.values().forEach(all::addAll);
        pendingAcks.clear();
        return all;
    }

    private List<PendingAck> failPendingIfNotEnoughIsrLocked() {
        List<PendingAck> failed = new ArrayList<>();
        var it = pendingAcks.values().iterator();
        while (it.hasNext()) {
            List<PendingAck> acks = it.next();
            acks.removeIf(ack -> {
                if (isr.size() < ack.minIsr()) {
                    failed.add(ack);
                    return true;
                }
                return false;
            });
            if (acks.isEmpty()) {
                it.remove();
            }
        }
        return failed;
    }

    private static void completeAll(List<PendingAck> acks, ErrorCode code) {
        for (PendingAck ack : acks) {
            ack.future().complete(code);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Leader: delete records

    /**
     * Deletes the records below {@code offset} ({@code -1}: the high watermark) as leader: moves the log start offset
     * there, durably (see {@link Log#maybeIncrementLogStartOffset}); an offset at or below the start changes nothing.
     * Followers take the new start from their next fetch ({@link #awaitLowWatermark} waits for them). Returns the
     * leader's log start offset.
     *
     * @throws ReplicaException NOT_LEADER, or OFFSET_OUT_OF_RANGE for an offset above the high watermark or below -1
     * @throws LogException STORAGE_ERROR if the log is offline
     */
    public long deleteRecordsBefore(long offset) {
        synchronized (lock) {
            Log l = log;
            if (!leader || l == null) {
                throw new ReplicaException(ErrorCode.NOT_LEADER, "broker " + localBrokerId + " is not the leader of " + tp);
            }
            long target = offset == -1 ? highWatermark : offset;
            if (target < 0 || target > highWatermark) {
                throw new ReplicaException(ErrorCode.OFFSET_OUT_OF_RANGE, tp + ": cannot delete records before offset " + offset
                    + ": it is not between 0 and the high watermark " + highWatermark + " (or -1 for the high watermark)");
            }
            return l.maybeIncrementLogStartOffset(target);
        }
    }

    /**
     * Completes with the low watermark (the least log start offset over this leader and its ISR, each follower's as
     * its last fetch said) once it is at least {@code offset}: then no replica that may be elected still serves the
     * records deleted below it (as Kafka's DeleteRecords waits). Fails with NOT_LEADER if the leadership goes first;
     * a caller that stops waiting calls {@link #forgetDeleteWaiter}.
     */
    public CompletableFuture<Long> awaitLowWatermark(long offset) {
        CompletableFuture<Long> future = new CompletableFuture<>();
        List<DeleteDone> done;
        synchronized (lock) {
            if (!leader || log == null) {
                future.completeExceptionally(new ReplicaException(ErrorCode.NOT_LEADER,
                    "broker " + localBrokerId + " is not the leader of " + tp));
                return future;
            }
            pendingDeletes.add(new PendingDelete(offset, future));
            done = completeDeletesLocked();
        }
        completeDeletes(done);
        return future;
    }

    /** Drops a delete-records waiter whose caller gave up (its timeout). */
    public void forgetDeleteWaiter(CompletableFuture<Long> future) {
        synchronized (lock) {
            pendingDeletes.removeIf(d -> d.future() == future);
        }
    }

    /** The least log start offset over this leader and the followers in its ISR (-1 for one not heard from yet). */
    private long lowWatermarkLocked() {
        long low = log.logStartOffset();
        for (int replica : isr) {
            if (replica != localBrokerId) {
                low = Math.min(low, followerLogStartOffsets.getOrDefault(replica, -1L));
            }
        }
        return low;
    }

    private List<DeleteDone> completeDeletesLocked() {
        if (pendingDeletes.isEmpty() || !leader || log == null) {
            return List.of();
        }
        long low = lowWatermarkLocked();
        List<DeleteDone> done = new ArrayList<>();
        pendingDeletes.removeIf(d -> {
            if (low >= d.offset()) {
                done.add(new DeleteDone(d.future(), low));
                return true;
            }
            return false;
        });
        return done;
    }

    private static void completeDeletes(List<DeleteDone> done) {
        for (DeleteDone d : done) {
            d.future().complete(d.lowWatermark());
        }
    }

    private List<PendingDelete> drainDeletesLocked() {
        List<PendingDelete> all = new ArrayList<>(pendingDeletes);
        pendingDeletes.clear();
        return all;
    }

    private void failDeletes(List<PendingDelete> deletes) {
        for (PendingDelete d : deletes) {
            d.future().completeExceptionally(new ReplicaException(ErrorCode.NOT_LEADER,
                "broker " + localBrokerId + " lost the leadership of " + tp + " before its followers deleted the records"));
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Leader: ISR

    /**
     * The ISR change this leader wants now, if any and none is in flight (see {@link PartitionState#proposeIsrChange}):
     * followers that have not caught up for {@code lagMaxMs} leave; followers that reached the high watermark (and
     * this epoch's start) join, if that was fetched by their current incarnation ({@code registeredBrokerEpoch}: a
     * broker's epoch in this broker's metadata image, -1 if unregistered).
     */
    public Optional<PartitionState.IsrChange> proposeIsrChange(long lagMaxMs, IntToLongFunction registeredBrokerEpoch) {
        synchronized (lock) {
            if (!leader || state == null) {
                return Optional.empty();
            }
            PartitionState.Transition t = state.proposeIsrChange(time.milliseconds(), lagMaxMs, registeredBrokerEpoch);
            state = t.state();
            return Optional.ofNullable(t.effects().proposal());
        }
    }

    /** The controller answered an ISR change: take its ISR (or drop the proposal when refused). */
    public void completeIsrChange(PartitionState.IsrChange change, List<Integer> committedIsr, int newPartitionEpoch,
                                  boolean accepted) {
        List<PendingAck> committed;
        List<PendingAck> failed;
        List<DeleteDone> deletes;
        synchronized (lock) {
            if (state == null || state.pendingIsr() == null || !state.pendingIsr().equals(change.newIsr())) {
                return;
            }
            committed = applyLocked(state.onIsrChangeAnswered(change, committedIsr, newPartitionEpoch, accepted,
                time.milliseconds()));
            failed = failPendingIfNotEnoughIsrLocked();
            deletes = completeDeletesLocked();
        }
        completeCommitted(committed);
        completeAll(failed, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        completeDeletes(deletes);
        onDataChange.run();
    }

    /**
     * An ISR change got no answer (timed out, connection lost): it stays in flight, since the controller may still
     * commit it, and is sent again at the next ISR check (see {@link PartitionState#onIsrChangeUnanswered}).
     */
    public void isrChangeUnanswered(PartitionState.IsrChange change) {
        synchronized (lock) {
            if (state != null) {
                state = state.onIsrChangeUnanswered(change, time.milliseconds()).state();
            }
        }
    }

    /** Each follower's log end offset as this leader last saw it (-1 before its first fetch); empty unless leader. */
    public Map<Integer, Long> followerEndOffsets() {
        synchronized (lock) {
            return state == null ? Map.of() : state.followerEndOffsets();
        }
    }

    /** When each follower was last caught up, as this leader last saw it (ms); empty unless leader. */
    public Map<Integer, Long> followerLastCaughtUpMs() {
        synchronized (lock) {
            return state == null ? Map.of() : state.followerLastCaughtUpMs();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Follower

    /**
     * Appends batches fetched from the leader from {@code fetchOffset} (which must be the log end offset; see
     * {@link Log#appendAsFollower}), takes the leader's high watermark, and the leader's log start offset as far as
     * this replica's high watermark (records deleted on the leader, by request or retention, go here too).
     *
     * @return the records appended (0 when the role changed while the fetch was in flight)
     */
    public long appendAsFollower(ByteBuffer records, long fetchOffset, long leaderHighWatermark, long leaderLogStartOffset,
                                 int expectedLeaderEpoch) {
        long appended = 0;
        synchronized (lock) {
            Log l = log;
            if (leader || l == null || expectedLeaderEpoch != leaderEpoch) {
                return 0; // the role changed while the fetch was in flight
            }
            if (records.hasRemaining()) {
                l.appendAsFollower(records, fetchOffset);
                for (RecordBatch batch : Records.batches(records)) {
                    producerState.update(batch, batch.baseOffset(), batch.lastOffset());
                    appended += batch.recordCount();
                }
            }
            long hw = FollowerDecisions.highWatermark(highWatermark, leaderHighWatermark, l.logEndOffset());
            if (hw != highWatermark) {
                setHighWatermarkLocked(hw);
            }
            long start = Math.min(leaderLogStartOffset, highWatermark);
            if (start > l.logStartOffset()) {
                l.maybeIncrementLogStartOffset(start);
            }
        }
        return appended;
    }

    /** Truncates a follower's log (a divergence with the leader, or the leader's log starts later). */
    public void truncateTo(long offset, int expectedLeaderEpoch) {
        synchronized (lock) {
            if (leader || log == null || expectedLeaderEpoch != leaderEpoch) {
                return;
            }
            boolean cuts = offset < log.logEndOffset();
            // Also at or past the log end: the log then drops an epoch that ends its cache without records (one this
            // replica assigned as leader and never wrote in), which it would otherwise name in every fetch.
            log.truncateTo(offset);
            if (cuts) {
                // Reloaded, as Kafka does, not trimmed: a producer whose retained batches were all cut still has
                // older batches in the log, and forgetting it would refuse its next batch as out of order.
                loadProducerState(log);
                setHighWatermarkLocked(Math.min(highWatermark, offset));
            }
        }
    }

    public void truncateFullyAndStartAt(long offset, int expectedLeaderEpoch) {
        synchronized (lock) {
            if (leader || log == null || expectedLeaderEpoch != leaderEpoch) {
                return;
            }
            log.truncateFullyAndStartAt(offset);
            producerState.clear();
            setHighWatermarkLocked(offset);
        }
    }

    /**
     * Loads the idempotent-producer state when the replica is first loaded: from the newest usable producer snapshot
     * (not past the log end, not before the log start), then the batches after it; with none, from the whole log.
     * Unusable snapshots (corrupt, past the end) are deleted. From then on the log writes a snapshot at each roll and
     * at a clean shutdown. Returns how many batches were replayed from the log.
     */
    public long loadProducerState(Log partitionLog) {
        synchronized (lock) {
            producerState.clear();
            long end = partitionLog.logEndOffset();
            long offset = partitionLog.logStartOffset();
            List<Long> snapshots = partitionLog.producerSnapshotOffsets();
            for (int i = snapshots.size() - 1; i >= 0; i--) {
                long at = snapshots.get(i);
                if (at > end) {
                    partitionLog.deleteProducerSnapshot(at);
                    continue;
                }
                if (at < partitionLog.logStartOffset()) {
                    break;
                }
                try {
                    producerState.loadSnapshot(partitionLog.readProducerSnapshot(at));
                    offset = at;
                    break;
                } catch (IllegalArgumentException e) {
                    LOG.warn("{}: producer snapshot at {} is unusable ({}); deleting it", tp, at, e.getMessage());
                    partitionLog.deleteProducerSnapshot(at);
                }
            }
            long replayed = 0;
            long from = offset;
            while (offset < end) {
                ByteBuffer chunk = partitionLog.read(offset, PRODUCER_STATE_SCAN_BYTES, end, true).readIntoBuffer();
                long next = offset;
                for (RecordBatch batch : Records.batches(chunk)) {
                    if (batch.lastOffset() >= from) {
                        producerState.update(batch, batch.baseOffset(), batch.lastOffset());
                        replayed++;
                    }
                    next = batch.nextOffset();
                }
                if (next == offset) {
                    break;
                }
                offset = next;
            }
            // Under this partition's lock on every append path (the log calls it from its roll).
            partitionLog.setProducerSnapshotSource(producerState::snapshot);
            return replayed;
        }
    }

    /**
     * The idempotent producers this replica knows (for DescribeProducers): a copy taken under the partition lock, which
     * an append waits for no longer than the copy of one small map takes.
     */
    public List<ProducerStateManager.ActiveProducer> activeProducers() {
        synchronized (lock) {
            return producerState.activeProducers();
        }
    }

    /** The idempotent-producer state (read it under no concurrent append: tests and tools). */
    ProducerStateManager producerState() {
        return producerState;
    }

    private static ReadResult error(ErrorCode code, String message) {
        return new ReadResult(code, message, -1, -1, -1, null, -1, -1);
    }

    @Override
    public String toString() {
        return tp + (leader ? " leader" : " follower of " + leaderId) + " epoch " + leaderEpoch + " isr " + isr;
    }
}
