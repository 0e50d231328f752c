package io.raftline.broker.log;

import io.raftline.common.Time;
import io.raftline.protocol.ErrorCode;
import io.raftline.record.BatchValidator;
import io.raftline.record.RecordBatch;
import io.raftline.record.TimestampType;
import io.raftline.record.ValidationResult;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition replica's log: a directory {@code <topic>-<partition>} of {@link LogSegment}s, the
 * {@link LeaderEpochCache} and {@code partition.metadata}.
 *
 * <p>Threading: one writer at a time (the partition's leader or follower path, plus the background retention,
 * flush and cleaner tasks) — every mutation holds {@code lock}. Reads take no lock: they work from the published
 * end ({@code end}, volatile, replaced only after a batch's bytes and index entries are written) and the
 * concurrent segment map, so a reader never sees a batch past the log end offset. Deleted segment files are
 * renamed to {@code *.deleted} and closed only after {@code file.delete.delay.ms}, so slices handed to readers stay
 * readable meanwhile.
 *
 * <p>After an I/O error the log goes offline for good: every later call fails with STORAGE_ERROR and the
 * {@link StorageErrorHandler} (the {@link LogManager}) takes the whole directory offline.
 */
public final class Log {

    private static final Logger LOG = LoggerFactory.getLogger(Log.class);

    /**
     * Told about the first I/O error of a log, so the owner can take the directory offline; and about each
     * truncation, after which the owner's recovery-point checkpoint must not claim more than the new end.
     */
    public interface StorageErrorHandler {
        void onStorageError(Log log, IOException error);

        /** The log was truncated (its recovery point is at most its new end); called without the log's lock. */
        default void onTruncated(Log log) {
        }

        /**
         * The log start offset was moved by a delete-records request; called without the log's lock. The owner makes
         * it durable before returning (or takes the directory offline), so an acknowledged deletion survives a crash.
         */
        default void onLogStartOffsetIncremented(Log log) {
        }
    }

    /** The published end of the log: next offset and where it lies in the active segment. */
    record EndOffset(long offset, long segmentBaseOffset, int position) {
    }

    private final String topic;
    private final int partition;
    private final byte[] topicId;
    private final Path dir;
    private final Time time;
    private final ScheduledExecutorService scheduler;
    private final StorageErrorHandler errorHandler;
    private final LeaderEpochCache epochCache;
    final ConcurrentSkipListMap<Long, LogSegment> segments;
    final Object lock = new Object();

    private volatile LogConfig config;
    private volatile EndOffset end;
    private volatile long logStartOffset;
    private volatile long recoveryPoint;
    private volatile long highWatermark;
    private volatile boolean offline;
    private volatile boolean closed;
    private long unflushedMessages;
    /** fsyncs of this log's directory so far (each one makes the directory's entries durable). */
    private final AtomicLong directorySyncs = new AtomicLong();
    /** A segment file was created since the directory was last fsynced: the next flush fsyncs the directory. */
    private final AtomicBoolean segmentCreatedUnsynced = new AtomicBoolean();
    private long lastFlushMs;
    /** Bumped by every truncation, so the cleaner can tell a segment it read was rewritten in place. */
    private volatile long truncations;
    /** Offsets below this were compacted by the cleaner since this log was opened (memory only). */
    volatile long cleanedUpTo;
    /** partition.metadata was written without fsync; the next flush makes it durable (see PartitionMetadataFile). */
    private volatile boolean partitionMetadataUnsynced;
    /** The idempotent-producer state to snapshot at each roll and at a clean close; null: none. */
    private volatile Supplier<byte[]> producerSnapshotSource;

    Log(String topic, int partition, byte[] topicId, Path dir, LogConfig config, Time time, ScheduledExecutorService scheduler,
        StorageErrorHandler errorHandler, LeaderEpochCache epochCache, ConcurrentSkipListMap<Long, LogSegment> segments,
        long recoveryPoint, boolean partitionMetadataUnsynced) {
        this.topic = topic;
        this.partition = partition;
        this.topicId = topicId;
        this.dir = dir;
        this.config = config;
        this.time = time;
        this.scheduler = scheduler;
        this.errorHandler = errorHandler;
        this.epochCache = epochCache;
        this.segments = segments;
        LogSegment active = segments.lastEntry().getValue();
        this.end = new EndOffset(active.nextOffset(), active.baseOffset(), active.size());
        this.logStartOffset = segments.firstKey();
        this.recoveryPoint = Math.min(recoveryPoint, end.offset());
        this.highWatermark = logStartOffset;
        this.lastFlushMs = time.milliseconds();
        this.partitionMetadataUnsynced = partitionMetadataUnsynced;
    }

    /**
     * Opens (recovering if needed) or creates the log in {@code dir}.
     *
     * @param topicId the topic id to record in partition.metadata, or null to keep the stored one
     * @param cleanShutdown true if the directory's clean-shutdown marker was present: nothing is recovered
     */
    public static Log open(Path dir, String topic, int partition, byte[] topicId, LogConfig config, long recoveryPoint,
                           boolean cleanShutdown, Time time, ScheduledExecutorService scheduler, StorageErrorHandler handler)
        throws IOException {
        return LogLoader.load(dir, topic, partition, topicId, config, recoveryPoint, cleanShutdown, time, scheduler, handler);
    }

    // ---------------------------------------------------------------- appends

    /**
     * Checks producer batches against this log's rules ({@link BatchValidator}, {@code max.message.bytes}) without
     * writing or moving anything: the one check of a produce's bytes before anything reads their headers.
     *
     * @throws LogException CORRUPT_MESSAGE, UNSUPPORTED_FORMAT, MESSAGE_TOO_LARGE or INVALID_RECORD
     */
    public ValidationResult validateAsLeader(ByteBuffer batches) {
        ValidationResult v = BatchValidator.validate(batches, config.maxMessageBytes());
        if (!v.isOk()) {
            throw new LogException(v.error(), topicPartition() + ": " + v.message());
        }
        return v;
    }

    /**
     * Appends producer batches as the leader: validates them (nothing is written on an error), then as
     * {@link #appendAsLeader(ByteBuffer, int, ValidationResult)}.
     *
     * @throws LogException CORRUPT_MESSAGE, UNSUPPORTED_FORMAT, MESSAGE_TOO_LARGE or INVALID_RECORD for bad input;
     *                      STORAGE_ERROR if the log is offline
     */
    public LogAppendInfo appendAsLeader(ByteBuffer batches, int leaderEpoch) {
        return appendAsLeader(batches, leaderEpoch, validateAsLeader(batches));
    }

    /**
     * Appends producer batches that {@link #validateAsLeader} accepted ({@code v} is its answer for these
     * bytes, unchanged since): stamps each batch's base offset (from the log end offset) and the leader epoch in
     * place, sets LogAppendTime if the topic uses it, and writes the same bytes. The buffer (position to limit) is
     * modified in place; a read-only buffer is copied.
     *
     * @throws LogException STORAGE_ERROR if the log is offline
     */
    public LogAppendInfo appendAsLeader(ByteBuffer batches, int leaderEpoch, ValidationResult v) {
        if (!v.isOk()) {
            throw new IllegalArgumentException("appending batches that failed validation: " + v.message());
        }
        ByteBuffer buf = writable(batches);
        synchronized (lock) {
            checkWritable();
            long now = time.milliseconds();
            boolean logAppendTime = config.timestampType() == TimestampType.LOG_APPEND_TIME;
            long first = end.offset();
            long next = first;
            long maxTimestamp = RecordBatch.NO_TIMESTAMP;
            long offsetOfMax = first;
            for (int p = buf.position(); p < buf.limit(); ) {
                RecordBatch batch = RecordBatch.view(buf, p);
                batch.setBaseOffset(next);
                batch.setPartitionLeaderEpoch(leaderEpoch);
                if (logAppendTime) {
                    batch.setMaxTimestampAndType(now, TimestampType.LOG_APPEND_TIME);
                }
                next = batch.lastOffset() + 1;
                if (batch.maxTimestamp() >= maxTimestamp) {
                    maxTimestamp = batch.maxTimestamp();
                    offsetOfMax = batch.lastOffset();
                }
                p += batch.sizeInBytes();
            }
            try {
                if (leaderEpoch > epochCache.latestEpoch()) {
                    epochCache.assign(leaderEpoch, first);
                }
                appendBytes(buf, first, next - 1, v.recordCount(), now);
            } catch (IOException e) {
                throw storageError("append", e);
            }
            return new LogAppendInfo(first, next - 1, maxTimestamp, offsetOfMax, logAppendTime ? now : -1, v.recordCount(),
                v.batchCount(), v.sizeInBytes(), logStartOffset, v);
        }
    }

    /**
     * Records in the epoch cache that {@code leaderEpoch} starts at the log end offset, and returns that offset: this
     * replica has just become the epoch's leader. Done when the role is taken, not at its first append (as Kafka's
     * epoch start offset), so that a leader which has written nothing in its epoch yet still answers a follower's
     * divergence check with it. Ignored if the cache already holds this or a later epoch. Written like any new epoch:
     * without fsync, durable at the next flush.
     *
     * @throws LogException STORAGE_ERROR if the log is offline or the checkpoint cannot be written
     */
    public long assignEpochStartOffset(int leaderEpoch) {
        synchronized (lock) {
            checkWritable();
            long start = end.offset();
            if (leaderEpoch > epochCache.latestEpoch()) {
                try {
                    epochCache.assign(leaderEpoch, start);
                } catch (IOException e) {
                    throw storageError("write the epoch checkpoint", e);
                }
            }
            return start;
        }
    }

    /**
     * Appends batches copied from the leader, offsets and leader epochs as they are: the leader's answer to a fetch
     * from {@code fetchOffset}, which must be this log's end offset. The batches then continue this log: the leader
     * read them from that offset, so any offsets between it and the first batch, or between batches, are absent from
     * the leader's log too (compaction removed them). An answer to a fetch from another offset would leave a gap or
     * overlap and is refused. The epoch cache learns every new epoch.
     *
     * @throws LogException INVALID_RECORD for an answer to a fetch from another offset than the log end, or bad input
     *                      (nothing written); STORAGE_ERROR for an offline log
     */
    public LogAppendInfo appendAsFollower(ByteBuffer batches, long fetchOffset) {
        // Only read and written to the file: a read-only view (the fetch answer's own bytes) needs no copy.
        ByteBuffer buf = batches.duplicate();
        ValidationResult v = BatchValidator.validateReplicated(buf, Math.max(config.maxMessageBytes(), 64 << 20));
        if (!v.isOk()) {
            throw new LogException(v.error(), topicPartition() + ": " + v.message());
        }
        synchronized (lock) {
            checkWritable();
            if (fetchOffset != end.offset()) {
                throw new LogException(ErrorCode.INVALID_RECORD, topicPartition() + ": replicated batches fetched from offset "
                    + fetchOffset + " cannot be appended at the log end offset " + end.offset() + " (they would leave "
                    + (fetchOffset > end.offset() ? "a gap" : "an overlap") + ")");
            }
            if (v.firstOffset() < end.offset()) {
                throw new LogException(ErrorCode.INVALID_RECORD, topicPartition() + ": replicated batch starts at offset "
                    + v.firstOffset() + ", below the log end offset " + end.offset());
            }
            long now = time.milliseconds();
            long maxTimestamp = RecordBatch.NO_TIMESTAMP;
            long offsetOfMax = v.firstOffset();
            try {
                for (int p = buf.position(); p < buf.limit(); ) {
                    RecordBatch batch = RecordBatch.view(buf, p);
                    if (batch.partitionLeaderEpoch() > epochCache.latestEpoch()) {
                        epochCache.assign(batch.partitionLeaderEpoch(), batch.baseOffset());
                    }
                    if (batch.maxTimestamp() >= maxTimestamp) {
                        maxTimestamp = batch.maxTimestamp();
                        offsetOfMax = batch.lastOffset();
                    }
                    p += batch.sizeInBytes();
                }
                appendBytes(buf, v.firstOffset(), v.lastOffset(), v.recordCount(), now);
            } catch (IOException e) {
                throw storageError("append", e);
            }
            return new LogAppendInfo(v.firstOffset(), v.lastOffset(), maxTimestamp, offsetOfMax, -1, v.recordCount(),
                v.batchCount(), v.sizeInBytes(), logStartOffset, v);
        }
    }

    private static ByteBuffer writable(ByteBuffer batches) {
        if (!batches.isReadOnly()) {
            return batches;
        }
        ByteBuffer copy = ByteBuffer.allocate(batches.remaining());
        copy.put(batches.duplicate()).flip();
        return copy;
    }

    /** Writes validated batches with final offsets; rolls first if needed. Caller holds the lock. */
    private void appendBytes(ByteBuffer buf, long firstOffset, long lastOffset, long records, long now) throws IOException {
        LogSegment segment = maybeRoll(buf.remaining(), firstOffset, lastOffset, now);
        segment.append(buf, now);
        end = new EndOffset(lastOffset + 1, segment.baseOffset(), segment.size());
        unflushedMessages += records;
        if (unflushedMessages >= config.flushMessages() || now - lastFlushMs >= config.flushMs()) {
            flush();
        }
    }

    private LogSegment maybeRoll(int appendBytes, long firstOffset, long lastOffset, long now) throws IOException {
        LogSegment active = segments.lastEntry().getValue();
        LogConfig c = config;
        boolean full = active.size() > 0 && (long) active.size() + appendBytes > c.segmentBytes();
        boolean old = active.size() > 0 && now - active.rollBaseMs() >= c.segmentMs();
        boolean offsetOverflow = lastOffset - active.baseOffset() > Integer.MAX_VALUE;
        if (!(full || old || offsetOverflow || (active.size() > 0 && active.indexIsFull()))) {
            return active;
        }
        return roll(firstOffset, now);
    }

    /** Starts a new active segment at {@code baseOffset}. Caller holds the lock. */
    private LogSegment roll(long baseOffset, long now) throws IOException {
        LogSegment previous = segments.lastEntry().getValue();
        if (baseOffset < previous.nextOffset()) {
            throw new IllegalStateException(topicPartition() + ": roll at " + baseOffset + " below " + previous);
        }
        previous.onBecomeInactive();
        LogSegment next = LogSegment.create(dir, baseOffset, config, now);
        segmentCreatedUnsynced.set(true);
        segments.put(baseOffset, next);
        Supplier<byte[]> snapshot = producerSnapshotSource;
        if (snapshot != null) {
            // Appends update the producer state after the log, so at a roll it covers exactly the offsets below baseOffset.
            ProducerSnapshotFiles.write(dir, baseOffset, snapshot.get());
        }
        LOG.info("{}: rolled to a new segment at offset {} after {}", topicPartition(), baseOffset, previous);
        try {
            scheduler.execute(() -> {
                try {
                    flushUpTo(baseOffset);
                } catch (LogException e) {
                    LOG.warn("{}: flush after roll failed: {}", topicPartition(), e.getMessage());
                }
            });
        } catch (RejectedExecutionException e) {
            // shutting down: the shutdown path flushes everything
            LOG.debug("{}: scheduler stopped; the rolled segment is flushed at shutdown", topicPartition());
        }
        return next;
    }

    /** Rolls a new segment now if the active one is non-empty (for tests and tools). */
    public void roll() {
        synchronized (lock) {
            checkWritable();
            LogSegment active = segments.lastEntry().getValue();
            if (active.isEmpty()) {
                return;
            }
            try {
                roll(end.offset(), time.milliseconds());
                end = new EndOffset(end.offset(), end.offset(), 0);
            } catch (IOException e) {
                throw storageError("roll", e);
            }
        }
    }

    // ---------------------------------------------------------------- reads

    /**
     * Reads whole batches starting with the one that holds {@code startOffset}, at most {@code maxBytes} (but at
     * least one batch if {@code minOneBatch}), none starting at or after {@code maxOffsetExclusive} (the high
     * watermark for consumers). Returns file slices, nothing decoded; empty at the end of the log.
     *
     * @throws LogException OFFSET_OUT_OF_RANGE outside [logStartOffset, logEndOffset]; STORAGE_ERROR if offline
     */
    public FetchDataInfo read(long startOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
        for (int attempt = 0; ; attempt++) {
            checkOnline();
            EndOffset e = end;
            long start = logStartOffset;
            if (startOffset < start || startOffset > e.offset()) {
                throw new LogException(ErrorCode.OFFSET_OUT_OF_RANGE, topicPartition() + ": offset " + startOffset
                    + " is outside [" + start + ", " + e.offset() + "]");
            }
            long upper = Math.min(maxOffsetExclusive, e.offset());
            if (startOffset >= upper) {
                return FetchDataInfo.empty(startOffset);
            }
            Map.Entry<Long, LogSegment> entry = segments.floorEntry(startOffset);
            if (entry == null) {
                entry = segments.firstEntry();
            }
            LogSegment segment = null;
            try {
                while (entry != null && entry.getKey() <= e.segmentBaseOffset()) {
                    segment = entry.getValue();
                    int maxPosition = segment.baseOffset() == e.segmentBaseOffset() ? e.position() : segment.size();
                    FileSlice slice = segment.read(startOffset, maxBytes, upper, maxPosition, minOneBatch);
                    if (slice != null) {
                        return new FetchDataInfo(startOffset, List.of(slice));
                    }
                    entry = segments.higherEntry(entry.getKey());
                }
                return FetchDataInfo.empty(startOffset);
            } catch (IOException ex) {
                // A segment deleted or replaced under us (its channel closed): try again from the new state.
                if (attempt < 3 && segment != null && segments.get(segment.baseOffset()) != segment) {
                    continue;
                }
                throw storageError("read", ex);
            }
        }
    }

    /** The first record whose timestamp is >= {@code timestamp}, if any (ListOffsets by time). */
    public Optional<TimestampOffset> offsetForTimestamp(long timestamp) {
        checkOnline();
        EndOffset e = end;
        try {
            for (LogSegment segment : segments.values()) {
                if (segment.baseOffset() > e.segmentBaseOffset()) {
                    break;
                }
                if (segment.largestTimestamp() < timestamp && segment.baseOffset() != e.segmentBaseOffset()) {
                    continue;
                }
                int maxPosition = segment.baseOffset() == e.segmentBaseOffset() ? e.position() : segment.size();
                TimestampOffset found = segment.findOffsetByTimestamp(timestamp, logStartOffset, maxPosition);
                if (found != null) {
                    return Optional.of(found);
                }
            }
            return Optional.empty();
        } catch (IOException ex) {
            throw storageError("timestamp lookup", ex);
        }
    }

    // ---------------------------------------------------------------- truncation

    /**
     * Removes every batch whose last offset is >= {@code offset} (a follower after a leader change). The new end is
     * {@code offset} when it is a batch boundary (the normal case). Also truncates the epoch cache.
     */
    public void truncateTo(long offset) {
        synchronized (lock) {
            checkWritable();
            if (offset >= end.offset()) {
                // Nothing to cut from the log, but an epoch this replica assigned as leader and never wrote in may end
                // the cache: drop it, or this replica goes on naming it as its last fetched epoch and the new leader
                // answers the same divergence forever (as Kafka's UnifiedLog.truncateTo, which always truncates its
                // epoch cache from the log end).
                try {
                    epochCache.truncateFromEnd(end.offset());
                } catch (IOException e) {
                    throw storageError("truncate the epoch checkpoint", e);
                }
                return;
            }
            if (offset <= logStartOffset) {
                truncateFullyLocked(offset);
            } else {
                truncateTailLocked(offset);
            }
        }
        errorHandler.onTruncated(this);
    }

    /** Deletes every segment and starts an empty log at {@code offset} (a follower too far behind the leader). */
    public void truncateFullyAndStartAt(long offset) {
        synchronized (lock) {
            checkWritable();
            truncateFullyLocked(offset);
        }
        errorHandler.onTruncated(this);
    }

    private void truncateTailLocked(long offset) {
        try {
            List<LogSegment> removed = new ArrayList<>(segments.tailMap(offset, true).values());
            for (LogSegment s : removed) {
                segments.remove(s.baseOffset());
            }
            truncations++;
            LogSegment last = segments.lastEntry().getValue();
            if (!removed.isEmpty()) {
                // An older segment becomes the last one. If the log was opened after it was written, the loader read
                // only the active segment's tail (and the recovered segments), so its end is not known yet: read it
                // as the loader does for the active segment, or the log end would fall back to its base offset.
                last.loadTail();
            }
            last.truncateTo(offset);
            if (!removed.isEmpty()) {
                last.onBecomeActive(config.segmentIndexBytes());
            }
            end = new EndOffset(last.nextOffset(), last.baseOffset(), last.size());
            long newEnd = end.offset();
            ProducerSnapshotFiles.deleteIf(dir, o -> o > newEnd);
            epochCache.truncateFromEnd(end.offset());
            scheduleDeletion(removed);
            recoveryPoint = Math.min(recoveryPoint, end.offset());
            highWatermark = Math.min(highWatermark, end.offset());
            LOG.info("{}: truncated to {} (log end offset now {})", topicPartition(), offset, end.offset());
        } catch (IOException e) {
            throw storageError("truncate", e);
        }
    }

    private void truncateFullyLocked(long offset) {
        try {
            truncations++;
            List<LogSegment> removed = new ArrayList<>(segments.values());
            for (LogSegment s : removed) {
                s.onBecomeInactive();
            }
            // renamed first: the new segment may take the same file names
            scheduleDeletion(removed);
            ProducerSnapshotFiles.deleteIf(dir, o -> true);
            LogSegment fresh = LogSegment.create(dir, offset, config, time.milliseconds());
            // The renames and the new segment made durable before the recovery point jumps to offset: otherwise a
            // power loss could bring back the old segments below a recovery point that vouches for them.
            syncDirectory();
            segments.put(offset, fresh);
            segments.headMap(offset, false).clear();
            segments.tailMap(offset, false).clear();
            end = new EndOffset(offset, offset, 0);
            logStartOffset = offset;
            recoveryPoint = offset;
            highWatermark = offset;
            epochCache.clear();
        } catch (IOException e) {
            throw storageError("truncate fully", e);
        }
    }

    // ---------------------------------------------------------------- log start offset

    /**
     * Moves the log start offset up to {@code offset} (a delete-records request): offsets below it are no longer
     * readable, fetches from below answer OFFSET_OUT_OF_RANGE and ListOffsets earliest answers {@code offset}, as
     * after retention. Segments wholly below it are deleted by the next {@link #deleteOldSegments}. An offset at or
     * below the current start changes nothing. The new start is made durable (by the {@link StorageErrorHandler},
     * the log manager's {@code log-start-offset-checkpoint}) before this returns. Returns the log start offset.
     *
     * @throws LogException OFFSET_OUT_OF_RANGE above the high watermark; STORAGE_ERROR if the log is (or goes) offline
     */
    public long maybeIncrementLogStartOffset(long offset) {
        synchronized (lock) {
            checkWritable();
            if (offset > highWatermark) {
                throw new LogException(ErrorCode.OFFSET_OUT_OF_RANGE, topicPartition() + ": cannot delete records up to offset "
                    + offset + ", above the high watermark " + highWatermark);
            }
            if (offset <= logStartOffset) {
                return logStartOffset;
            }
            advanceLogStartOffsetLocked(offset);
            LOG.info("{}: records below {} deleted on request; log start offset now {}", topicPartition(), offset, offset);
        }
        errorHandler.onLogStartOffsetIncremented(this);
        checkOnline();
        return logStartOffset;
    }

    /**
     * Takes the log start offset stored at the last checkpoint (the log manager, when it loads the log): clamped to
     * the segments the log holds, and never back below what the segments say.
     */
    void restoreLogStartOffset(long checkpointed) {
        synchronized (lock) {
            long offset = Math.min(checkpointed, end.offset());
            if (offset > logStartOffset) {
                advanceLogStartOffsetLocked(offset);
                highWatermark = Math.max(highWatermark, logStartOffset);
            }
        }
    }

    /** Caller holds the lock; {@code offset} is above the current start and at most the log end. */
    private void advanceLogStartOffsetLocked(long offset) {
        logStartOffset = offset;
        try {
            epochCache.truncateFromStart(offset);
        } catch (IOException e) {
            throw storageError("write the epoch checkpoint", e);
        }
    }

    // ---------------------------------------------------------------- retention

    /**
     * Deletes whole segments past {@code retention.ms} (by their largest timestamp) or beyond
     * {@code retention.bytes}, oldest first, never the active segment and only below the high watermark; moves the
     * log start offset; and, whatever cleanup.policy says, segments wholly below the log start offset (records deleted
     * on request). Retention by time and size is a no-op unless cleanup.policy has delete. Returns the segments deleted.
     */
    public int deleteOldSegments() {
        synchronized (lock) {
            if (offline || closed) {
                return 0;
            }
            LogConfig c = config;
            boolean retention = c.deleteEnabled();
            long now = time.milliseconds();
            List<LogSegment> doomed = new ArrayList<>();
            try {
                long excess = c.retentionBytes() < 0 ? 0 : size() - c.retentionBytes();
                List<LogSegment> all = new ArrayList<>(segments.values());
                for (int i = 0; i < all.size() - 1; i++) {
                    LogSegment s = all.get(i);
                    long upper = all.get(i + 1).baseOffset();
                    if (upper > highWatermark) {
                        break;
                    }
                    // below the log start offset (records deleted on request): whatever the cleanup policy
                    boolean belowStart = upper <= logStartOffset;
                    boolean expired = retention && c.retentionMs() >= 0 && now - s.largestTimestamp() > c.retentionMs();
                    boolean tooBig = retention && c.retentionBytes() >= 0 && excess >= s.size();
                    if (!belowStart && !expired && !tooBig) {
                        break;
                    }
                    doomed.add(s);
                    excess -= s.size();
                }
                if (doomed.isEmpty()) {
                    return 0;
                }
                for (LogSegment s : doomed) {
                    segments.remove(s.baseOffset());
                }
                logStartOffset = Math.max(logStartOffset, segments.firstKey());
                epochCache.truncateFromStart(logStartOffset);
                scheduleDeletion(doomed);
                long start = logStartOffset;
                ProducerSnapshotFiles.deleteIf(dir, o -> o < start);
                LOG.info("{}: retention deleted {} segment(s); log start offset now {}", topicPartition(), doomed.size(), logStartOffset);
                return doomed.size();
            } catch (IOException e) {
                throw storageError("retention", e);
            }
        }
    }

    /** Renames segments for deletion and deletes them after file.delete.delay.ms. Caller holds the lock. */
    private void scheduleDeletion(Collection<LogSegment> doomed) throws IOException {
        if (doomed.isEmpty()) {
            return;
        }
        for (LogSegment s : doomed) {
            s.renameForDeletion();
        }
        List<LogSegment> copy = List.copyOf(doomed);
        Runnable delete = () -> {
            for (LogSegment s : copy) {
                try {
                    s.deleteFiles();
                } catch (IOException e) {
                    LOG.warn("{}: could not delete {}: {}", topicPartition(), s, e.toString());
                }
            }
        };
        long delay = config.fileDeleteDelayMs();
        if (delay == 0) {
            delete.run();
        } else {
            scheduler.schedule(delete, delay, TimeUnit.MILLISECONDS);
        }
    }

    // ---------------------------------------------------------------- flush

    /**
     * Writes everything appended so far to disk and moves the recovery point to the log end offset; also makes the
     * epoch checkpoint and partition.metadata durable if they were written since the last flush (a clean shutdown
     * relies on this).
     */
    public void flush() {
        flushUpTo(end.offset());
        syncMetadataFilesOrFail("flush");
    }

    /** Flushes if {@code flush.ms} has passed since the last flush and something is unflushed (the periodic task). */
    public void flushIfDue() {
        long now = time.milliseconds();
        if (end.offset() > recoveryPoint && now - lastFlushMs >= config.flushMs()) {
            flush();
        }
    }

    /**
     * Fsyncs the segments holding offsets below {@code offset}, then partition.metadata and the epoch checkpoint if
     * they hold unsynced changes, then raises the recovery point to it: everything the loader trusts below the
     * recovery point (batches, their epochs, the topic id) is durable first.
     */
    void flushUpTo(long offset) {
        List<LogSegment> toFlush;
        long target;
        long truncationsSeen;
        synchronized (lock) {
            if (offline || closed) {
                return;
            }
            target = Math.min(offset, end.offset());
            if (target <= recoveryPoint) {
                return;
            }
            Long from = segments.floorKey(recoveryPoint);
            toFlush = new ArrayList<>(segments.subMap(from == null ? segments.firstKey() : from, true, target, false).values());
            unflushedMessages = 0;
            lastFlushMs = time.milliseconds();
            truncationsSeen = truncations;
        }
        try {
            flushSegments(toFlush);
            syncMetadataFiles();
        } catch (IOException e) {
            if (!closed) {
                throw storageError("flush", e);
            }
            return;
        }
        synchronized (lock) {
            // A truncation meanwhile may have cut below target and written other batches there, unflushed.
            if (truncations == truncationsSeen && target > recoveryPoint) {
                recoveryPoint = Math.min(target, end.offset());
            }
        }
    }

    /**
     * Flushes segments listed under the lock, outside it. A segment deleted meanwhile (retention, truncation, a
     * cleaner's swap) has closed its channel and has nothing left to flush: it is skipped; a closed channel of a
     * segment still in the log is an error.
     */
    void flushSegments(List<LogSegment> listed) throws IOException {
        for (LogSegment s : listed) {
            try {
                s.flush();
            } catch (ClosedChannelException e) {
                synchronized (lock) {
                    if (segments.get(s.baseOffset()) == s) {
                        throw e;
                    }
                }
            }
        }
    }

    private void syncDirectory() throws IOException {
        CheckpointFile.fsyncDirectory(dir);
        directorySyncs.incrementAndGet();
    }

    /** How many times this log's directory has been fsynced. */
    long directorySyncs() {
        return directorySyncs.get();
    }

    /** Whether partition.metadata was written since the log's last flush, not yet durable. */
    boolean partitionMetadataUnsynced() {
        return partitionMetadataUnsynced;
    }

    /**
     * Makes partition.metadata and the epoch checkpoint durable if they changed since the last flush, without
     * flushing segments (LogManager's periodic checkpoint task: it spreads over time the fsyncs that the next flush,
     * often the clean shutdown, would otherwise pay for every new log and epoch at once). Never on an append path.
     */
    void syncMetadataFilesInBackground() {
        syncMetadataFilesOrFail("sync partition.metadata and the epoch checkpoint");
    }

    private void syncMetadataFilesOrFail(String what) {
        if (offline || closed) {
            return;
        }
        try {
            syncMetadataFiles();
        } catch (IOException e) {
            if (!closed) {
                throw storageError(what, e);
            }
        }
    }

    private void syncMetadataFiles() throws IOException {
        boolean metadata = partitionMetadataUnsynced;
        if (metadata) {
            PartitionMetadataFile.syncContent(dir);
        }
        // Read and cleared before the fsyncs: a segment created meanwhile sets it again for the next flush.
        boolean newSegment = segmentCreatedUnsynced.getAndSet(false);
        boolean dirSynced = epochCache.flush();
        if (dirSynced) {
            directorySyncs.incrementAndGet();
        }
        if (newSegment && !dirSynced) {
            // a segment created since the last directory fsync: its entry, or the flushed records are not durable
            syncDirectory();
            dirSynced = true;
        }
        if (metadata) {
            // the file's rename into the partition dir, and the partition dir's creation in the log dir
            if (!dirSynced) {
                syncDirectory();
            }
            CheckpointFile.fsyncDirectory(dir.getParent());
            partitionMetadataUnsynced = false;
        }
    }

    // ---------------------------------------------------------------- cleaner support

    long truncations() {
        return truncations;
    }

    /** Inactive segments whose every offset is below the high watermark, oldest first. */
    List<LogSegment> cleanableSegments() {
        List<LogSegment> all = new ArrayList<>(segments.values());
        List<LogSegment> out = new ArrayList<>();
        for (int i = 0; i < all.size() - 1; i++) {
            if (all.get(i + 1).baseOffset() > highWatermark) {
                break;
            }
            out.add(all.get(i));
        }
        return out;
    }

    /**
     * Replaces {@code old} with its cleaned copy (files suffixed ".cleaned", same base offset) unless the segment
     * was deleted or replaced meanwhile; then the cleaned copy is discarded. Returns whether it was swapped in.
     */
    boolean replaceSegment(LogSegment old, LogSegment cleaned, long truncationsSeen) throws IOException {
        synchronized (lock) {
            if (offline || closed || segments.get(old.baseOffset()) != old || truncations != truncationsSeen
                || segments.lastEntry().getValue() == old) {
                cleaned.deleteFiles();
                return false;
            }
            cleaned.onBecomeInactive();
            cleaned.flush();
            old.renameForDeletion();
            cleaned.promoteCleaned();
            syncDirectory();
            segments.put(old.baseOffset(), cleaned);
            long delay = config.fileDeleteDelayMs();
            Runnable delete = () -> {
                try {
                    old.deleteFiles();
                } catch (IOException e) {
                    LOG.warn("{}: could not delete replaced {}: {}", topicPartition(), old, e.toString());
                }
            };
            if (delay == 0) {
                delete.run();
            } else {
                scheduler.schedule(delete, delay, TimeUnit.MILLISECONDS);
            }
            return true;
        }
    }

    // ---------------------------------------------------------------- state

    public long logEndOffset() {
        return end.offset();
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    /** Total bytes of all segment files. */
    public long size() {
        long total = 0;
        for (LogSegment s : segments.values()) {
            total += s.size();
        }
        return total;
    }

    public int numberOfSegments() {
        return segments.size();
    }

    /** Every offset below this is on disk (fsynced); recovery after a crash starts here. */
    public long recoveryPoint() {
        return recoveryPoint;
    }

    /** The high watermark as the broker last set it; retention and compaction never pass it. */
    public long highWatermark() {
        return highWatermark;
    }

    /** Sets the high watermark (clamped to [logStartOffset, logEndOffset]); the broker's replica manager owns it. */
    public void updateHighWatermark(long offset) {
        synchronized (lock) {
            highWatermark = Math.max(logStartOffset, Math.min(offset, end.offset()));
        }
    }

    /** The latest leader epoch in the epoch cache, -1 if none. */
    public int latestEpoch() {
        return epochCache.latestEpoch();
    }

    /** The largest epoch <= {@code epoch} and its end offset (see {@link LeaderEpochCache#endOffsetFor}). */
    public Optional<EpochEndOffset> endOffsetForEpoch(int epoch) {
        return epochCache.endOffsetFor(epoch, end.offset());
    }

    public LeaderEpochCache epochCache() {
        return epochCache;
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    public byte[] topicId() {
        return topicId == null ? null : topicId.clone();
    }

    public Path dir() {
        return dir;
    }

    public LogConfig config() {
        return config;
    }

    /** Applies changed topic configs; takes effect for the next append, roll, retention and cleaning. */
    public void updateConfig(LogConfig newConfig) {
        this.config = newConfig;
    }

    public boolean isOffline() {
        return offline;
    }

    /** Refuses every further operation with STORAGE_ERROR (its directory went offline). */
    void markOffline() {
        offline = true;
    }

    String topicPartition() {
        return topic + "-" + partition;
    }

    // ---------------------------------------------------------------- producer-state snapshots

    /**
     * Sets what to write as {@code <offset>.snapshot} at each roll (offset: the new segment's base) and at
     * {@link #writeProducerSnapshot()}. The supplier is called under this log's lock from the appending thread,
     * which for a partition's appends holds the partition's lock: it must not take other locks.
     */
    public void setProducerSnapshotSource(Supplier<byte[]> source) {
        this.producerSnapshotSource = source;
    }

    /** Writes a snapshot at the log end offset (a clean shutdown, once appends have stopped); no-op without a source. */
    public void writeProducerSnapshot() {
        synchronized (lock) {
            checkWritable();
            Supplier<byte[]> snapshot = producerSnapshotSource;
            if (snapshot == null) {
                return;
            }
            try {
                ProducerSnapshotFiles.write(dir, end.offset(), snapshot.get());
            } catch (IOException e) {
                throw storageError("producer snapshot", e);
            }
        }
    }

    /** The offsets of the producer-state snapshots beside the segments, ascending. */
    public List<Long> producerSnapshotOffsets() {
        checkOnline();
        try {
            return ProducerSnapshotFiles.offsets(dir);
        } catch (IOException e) {
            throw storageError("list producer snapshots", e);
        }
    }

    public byte[] readProducerSnapshot(long offset) {
        checkOnline();
        try {
            return ProducerSnapshotFiles.read(dir, offset);
        } catch (IOException e) {
            throw storageError("read producer snapshot", e);
        }
    }

    /** Deletes one snapshot (found unusable by its reader). */
    public void deleteProducerSnapshot(long offset) {
        synchronized (lock) {
            checkWritable();
            try {
                ProducerSnapshotFiles.deleteIf(dir, o -> o == offset);
            } catch (IOException e) {
                throw storageError("delete producer snapshot", e);
            }
        }
    }

    /** Flushes nothing; trims the active indexes and closes every file. */
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            for (LogSegment s : segments.values()) {
                try {
                    s.close();
                } catch (IOException e) {
                    LOG.warn("{}: closing {} failed: {}", topicPartition(), s, e.toString());
                }
            }
        }
    }

    boolean isClosed() {
        return closed;
    }

    private void checkOnline() {
        if (offline) {
            throw new LogException(ErrorCode.STORAGE_ERROR, topicPartition() + ": the log directory " + dir.getParent() + " is offline");
        }
        if (closed) {
            throw new LogException(ErrorCode.STORAGE_ERROR, topicPartition() + ": the log is closed");
        }
    }

    private void checkWritable() {
        checkOnline();
    }

    private LogException storageError(String what, IOException e) {
        boolean first = !offline;
        offline = true;
        if (first) {
            LOG.error("{}: I/O error during {}; the log goes offline", topicPartition(), what, e);
            errorHandler.onStorageError(this, e);
        }
        return new LogException(ErrorCode.STORAGE_ERROR, topicPartition() + ": " + what + " failed: " + e, e);
    }

    @Override
    public String toString() {
        return "Log(" + topicPartition() + ", start=" + logStartOffset + ", end=" + end.offset() + ", segments=" + segments.size() + ")";
    }
}
