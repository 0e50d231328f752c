package io.raftline.broker.log;

import io.raftline.common.Time;
import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.RecordBatchBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction for {@code cleanup.policy=compact}: keeps only the latest record of each key among the inactive
 * segments below the high watermark. Tombstones (null values) are kept until their segment's largest timestamp is
 * older than {@code delete.retention.ms}, so consumers that read slowly still see the delete. Records without a
 * key are dropped (a compacted topic needs keys).
 *
 * <p>Runs in the background without blocking appends: the reading and rewriting happen without the log's lock;
 * each cleaned segment (same base offset, kept records keep their offsets, a batch left whole is copied byte for
 * byte, a thinned batch is re-encoded with its codec, producer fields and leader epoch) is written as
 * {@code *.cleaned} files and swapped in under the lock only if nothing truncated or removed the segment
 * meanwhile. A crash mid-way leaves {@code *.cleaned} files that the loader deletes (the old segment stays) or a
 * renamed log with a missing index that the loader rebuilds.
 *
 * <p>Not done: merging small cleaned segments, a bounded dedupe map (the key map holds every key of the cleanable
 * range in memory), persisting the cleaner position across restarts (a restart re-cleans once).
 */
public final class LogCleaner {

    private static final Logger LOG = LoggerFactory.getLogger(LogCleaner.class);

    private final Time time;

    public LogCleaner(Time time) {
        this.time = time;
    }

    /** What one cleaning did. */
    public record CleanResult(int segmentsCleaned, long bytesBefore, long bytesAfter, long recordsRemoved) {
        static final CleanResult NOTHING = new CleanResult(0, 0, 0, 0);
    }

    /** Cleans {@code log} if it is compacted and dirty enough ({@code min.cleanable.dirty.ratio}). */
    public CleanResult clean(Log log) throws IOException {
        LogConfig config = log.config();
        if (!config.compact() || log.isOffline() || log.isClosed()) {
            return CleanResult.NOTHING;
        }
        long truncationsSeen = log.truncations();
        List<LogSegment> cleanable = log.cleanableSegments();
        if (cleanable.isEmpty()) {
            return CleanResult.NOTHING;
        }
        long total = 0;
        long dirty = 0;
        for (LogSegment s : cleanable) {
            total += s.size();
            if (s.baseOffset() >= log.cleanedUpTo) {
                dirty += s.size();
            }
        }
        if (total == 0 || (double) dirty / total < config.minCleanableDirtyRatio() || dirty == 0) {
            return CleanResult.NOTHING;
        }
        Map<ByteBuffer, Long> latest = new HashMap<>();
        for (LogSegment s : cleanable) {
            s.forEachBatch(0, s.size(), (batch, position) -> {
                for (Record r : batch.records()) {
                    if (r.hasKey()) {
                        latest.put(ByteBuffer.wrap(r.keyBytes()), r.offset());
                    }
                }
                return true;
            });
        }
        long now = time.milliseconds();
        long deleteHorizon = now - config.deleteRetentionMs();
        long before = 0;
        long after = 0;
        long removed = 0;
        int cleanedCount = 0;
        LogSegment last = cleanable.get(cleanable.size() - 1);
        for (LogSegment s : cleanable) {
            boolean dropTombstones = s.largestTimestamp() < deleteHorizon;
            LogSegment cleaned = LogSegment.create(log.dir(), s.baseOffset(), config, now, LogSegment.CLEANED_SUFFIX);
            long[] removedHere = {0};
            try {
                s.forEachBatch(0, s.size(), (batch, position) -> {
                    List<Record> keep = new ArrayList<>();
                    int count = 0;
                    for (Record r : batch.records()) {
                        count++;
                        Long newest = r.hasKey() ? latest.get(ByteBuffer.wrap(r.keyBytes())) : null;
                        if (newest != null && newest == r.offset() && (r.hasValue() || !dropTombstones)) {
                            keep.add(r);
                        }
                    }
                    removedHere[0] += count - keep.size();
                    if (keep.size() == count) {
                        cleaned.append(batch.slice(), now);
                    } else if (!keep.isEmpty()) {
                        cleaned.append(rebuild(batch, keep), now);
                    }
                    return true;
                });
            } catch (IOException | RuntimeException e) {
                cleaned.deleteFiles();
                throw e;
            }
            if (removedHere[0] == 0) {
                cleaned.deleteFiles();
                continue;
            }
            long sizeBefore = s.size();
            if (!log.replaceSegment(s, cleaned, truncationsSeen)) {
                LOG.debug("{}: segment {} changed while cleaning; will retry later", log.topicPartition(), s.baseOffset());
                return new CleanResult(cleanedCount, before, after, removed);
            }
            before += sizeBefore;
            after += cleaned.size();
            removed += removedHere[0];
            cleanedCount++;
        }
        Long upper = log.segments.higherKey(last.baseOffset());
        log.cleanedUpTo = upper == null ? last.nextOffset() : upper;
        if (cleanedCount > 0) {
            LOG.info("{}: compacted {} segment(s), {} -> {} bytes, {} records removed", log.topicPartition(), cleanedCount,
                before, after, removed);
        }
        return new CleanResult(cleanedCount, before, after, removed);
    }

    /** Re-encodes a batch with only {@code keep}, preserving offsets, codec, timestamps type, producer fields, epoch. */
    private static ByteBuffer rebuild(RecordBatch batch, List<Record> keep) {
        long firstOffset = keep.get(0).offset();
        int baseSequence = batch.baseSequence() == RecordBatch.NO_SEQUENCE ? RecordBatch.NO_SEQUENCE
            : (int) ((batch.baseSequence() + (firstOffset - batch.baseOffset())) % ((long) Integer.MAX_VALUE + 1));
        RecordBatchBuilder b = new RecordBatchBuilder(batch.compressionType(), batch.timestampType(), firstOffset,
            batch.producerId(), batch.producerEpoch(), baseSequence, batch.sizeInBytes());
        b.setPartitionLeaderEpoch(batch.partitionLeaderEpoch());
        for (Record r : keep) {
            b.appendWithOffset(r.offset(), r.timestamp(), r.keyBytes(), r.valueBytes(), r.headers());
        }
        return b.build();
    }
}
