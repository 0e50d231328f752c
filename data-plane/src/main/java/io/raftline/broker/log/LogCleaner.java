package io.raftline.broker.log;

import io.raftline.common.Time;
import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.RecordBatchBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
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
 * <p>The key map is bounded by {@code log.cleaner.dedupe.buffer.size} ({@link KeyOffsetMap}: 24 bytes per key): a
 * dirty range with more keys than fit is cleaned in several passes, each mapping the next part of the range and
 * cleaning everything before the end of that part.
 *
 * <p>Not done: merging small cleaned segments, persisting the cleaner position across restarts (a restart
 * re-cleans once).
 */
public final class LogCleaner {

    private static final Logger LOG = LoggerFactory.getLogger(LogCleaner.class);

    /** Kafka's default for {@code log.cleaner.dedupe.buffer.size}. */
    public static final long DEFAULT_DEDUPE_BUFFER_BYTES = 134_217_728L;

    private final Time time;
    private final long dedupeBufferBytes;

    public LogCleaner(Time time) {
        this(time, DEFAULT_DEDUPE_BUFFER_BYTES);
    }

    /**
     * @param dedupeBufferBytes the most memory the key map of one cleaning may take; it is allocated per cleaning,
     *                          no larger than the cleanable range needs, and dropped afterwards
     */
    public LogCleaner(Time time, long dedupeBufferBytes) {
        if (dedupeBufferBytes < KeyOffsetMap.SLOT_BYTES * 2L) {
            throw new IllegalArgumentException("log.cleaner.dedupe.buffer.size " + dedupeBufferBytes + " is below "
                + KeyOffsetMap.SLOT_BYTES * 2 + " bytes (two keys)");
        }
        this.time = time;
        this.dedupeBufferBytes = dedupeBufferBytes;
    }

    /** What one cleaning did; {@code passes}: how many times the key map was filled (more when it is too small). */
    public record CleanResult(int segmentsCleaned, long bytesBefore, long bytesAfter, long recordsRemoved, int passes) {
        static final CleanResult NOTHING = new CleanResult(0, 0, 0, 0, 0);
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
        long before = 0;
        long after = 0;
        long removed = 0;
        int cleanedCount = 0;
        int passes = 0;
        long firstDirty = Math.max(log.cleanedUpTo, cleanable.get(0).baseOffset());
        long rangeEnd = cleanable.get(cleanable.size() - 1).nextOffset();
        Long upper = log.segments.higherKey(cleanable.get(cleanable.size() - 1).baseOffset());
        KeyOffsetMap map = new KeyOffsetMap(Math.min(dedupeBufferBytes, Math.max(KeyOffsetMap.SLOT_BYTES * 64L, total * 4)));
        // Each pass maps the keys of as much of the dirty range as fits, then cleans everything before the end of
        // what it mapped; the next pass continues from there. Each pass maps at least one record.
        while (firstDirty < rangeEnd) {
            map.clear();
            long mapEnd = buildMap(cleanable, firstDirty, rangeEnd, map);
            passes++;
            PassResult pass = cleanPass(log, cleanable, map, mapEnd, truncationsSeen);
            before += pass.bytesBefore;
            after += pass.bytesAfter;
            removed += pass.removed;
            cleanedCount += pass.segments;
            if (pass.interrupted) {
                LOG.debug("{}: a segment changed while cleaning; will retry later", log.topicPartition());
                return new CleanResult(cleanedCount, before, after, removed, passes);
            }
            firstDirty = mapEnd;
            log.cleanedUpTo = mapEnd >= rangeEnd && upper != null ? upper : mapEnd;
            cleanable = log.cleanableSegments().stream().filter(seg -> seg.baseOffset() < rangeEnd).toList();
            if (cleanable.isEmpty()) {
                break;
            }
        }
        if (cleanedCount > 0) {
            LOG.info("{}: compacted {} segment(s) in {} pass(es), {} -> {} bytes, {} records removed", log.topicPartition(),
                cleanedCount, passes, before, after, removed);
        }
        return new CleanResult(cleanedCount, before, after, removed, passes);
    }

    /**
     * Maps key -> latest offset for the records in [{@code from}, {@code to}) until the map is full; returns the
     * offset where mapping stopped (every record below it whose key is mapped is superseded by the mapped offset).
     */
    private static long buildMap(List<LogSegment> segments, long from, long to, KeyOffsetMap map) throws IOException {
        long[] end = {from};
        boolean[] stop = {false};
        for (LogSegment s : segments) {
            if (stop[0] || s.nextOffset() <= from) {
                continue;
            }
            s.forEachBatch(0, s.size(), (batch, position) -> {
                if (batch.lastOffset() < from) {
                    return true;
                }
                for (Record r : batch.records()) {
                    if (r.offset() < from || r.offset() >= to) {
                        continue;
                    }
                    if (r.hasKey()) {
                        byte[] key = r.keyBytes();
                        if (!map.canPut(key)) {
                            stop[0] = true;
                            return false;
                        }
                        map.put(key, r.offset());
                    }
                    end[0] = r.offset() + 1;
                }
                return true;
            });
        }
        if (end[0] == from) {
            // Only key-less records (or none) from here: nothing to map, the whole rest is one pass.
            return to;
        }
        return stop[0] ? end[0] : to;
    }

    private record PassResult(int segments, long bytesBefore, long bytesAfter, long removed, boolean interrupted) {
    }

    /** Rewrites every segment holding offsets below {@code mapEnd} without the records the map supersedes. */
    private PassResult cleanPass(Log log, List<LogSegment> cleanable, KeyOffsetMap map, long mapEnd, long truncationsSeen)
        throws IOException {
        LogConfig config = log.config();
        long now = time.milliseconds();
        long deleteHorizon = now - config.deleteRetentionMs();
        long before = 0;
        long after = 0;
        long removed = 0;
        int cleanedCount = 0;
        for (LogSegment s : cleanable) {
            if (s.baseOffset() >= mapEnd) {
                break;
            }
            boolean dropTombstones = s.largestTimestamp() < deleteHorizon;
            LogSegment cleaned = LogSegment.create(log.dir(), s.baseOffset(), config, now, LogSegment.CLEANED_SUFFIX);
            long[] removedHere = {0};
            try {
                s.forEachBatch(0, s.size(), (batch, position) -> {
                    List<Record> keep = new ArrayList<>();
                    int count = 0;
                    for (Record r : batch.records()) {
                        count++;
                        if (retain(r, map, mapEnd, dropTombstones)) {
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
                return new PassResult(cleanedCount, before, after, removed, true);
            }
            before += sizeBefore;
            after += cleaned.size();
            removed += removedHere[0];
            cleanedCount++;
        }
        return new PassResult(cleanedCount, before, after, removed, false);
    }

    /**
     * Whether a record survives a pass: records at or past the mapped range are not judged yet; below it, a record
     * goes if a later record of its key is mapped, if it has no key, or if it is a tombstone past
     * {@code delete.retention.ms}.
     */
    private static boolean retain(Record r, KeyOffsetMap map, long mapEnd, boolean dropTombstones) {
        if (r.offset() >= mapEnd) {
            return true;
        }
        if (!r.hasKey()) {
            return false;
        }
        long latest = map.get(r.keyBytes());
        if (latest > r.offset()) {
            return false;
        }
        return r.hasValue() || !dropTombstones;
    }

    /** Re-encodes a batch with only {@code keep}, preserving offsets, codec, timestamps type, producer fields, epoch. */
    private static ByteBuffer rebuild(RecordBatch batch, List<Record> keep) {
        long firstOffset = keep.get(0).offset();
        int baseSequence = batch.baseSequence() == RecordBatch.NO_SEQUENCE ? RecordBatch.NO_SEQUENCE
            : Math.toIntExact((batch.baseSequence() + (firstOffset - batch.baseOffset())) % (1L << 31));
        RecordBatchBuilder b = new RecordBatchBuilder(batch.compressionType(), batch.timestampType(), firstOffset,
            batch.producerId(), batch.producerEpoch(), baseSequence, batch.sizeInBytes());
        b.setPartitionLeaderEpoch(batch.partitionLeaderEpoch());
        for (Record r : keep) {
            b.appendWithOffset(r.offset(), r.timestamp(), r.keyBytes(), r.valueBytes(), r.headers());
        }
        return b.build();
    }
}
