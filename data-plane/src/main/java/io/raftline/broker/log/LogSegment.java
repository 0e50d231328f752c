package io.raftline.broker.log;

import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * One segment of a partition's log: {@code <base offset, 20 digits>.log} holding batches back to back as they were
 * appended, with its sparse {@link OffsetIndex} ({@code .index}) and {@link TimeIndex} ({@code .timeindex}).
 *
 * <p>Threading: one writer (the owning {@link Log}, under its lock) appends, truncates, recovers and rolls; readers
 * on any thread call {@link #read} and the lookups with a {@code maxPosition} they got from the log's published end,
 * so they never look at bytes being written. {@link #size()} is volatile and grows only after the bytes are written.
 */
final class LogSegment {

    static final String LOG_SUFFIX = ".log";
    static final String INDEX_SUFFIX = ".index";
    static final String TIME_INDEX_SUFFIX = ".timeindex";
    static final String DELETED_SUFFIX = ".deleted";
    static final String CLEANED_SUFFIX = ".cleaned";

    private final long baseOffset;
    private final int indexIntervalBytes;
    private final int maxIndexBytes;
    private volatile Path logFile;
    private final FileChannel channel;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;

    private volatile int size;
    private volatile long nextOffset;
    private int bytesSinceLastIndexEntry;
    private volatile long maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
    private long offsetOfMaxTimestampSoFar = -1;
    /** Wall-clock time of the first append (or of opening, for an existing segment): drives segment.ms rolls. */
    private long rollBaseMs;

    private LogSegment(Path dir, long baseOffset, int indexIntervalBytes, int maxIndexBytes, long nowMs, String suffix)
        throws IOException {
        this.baseOffset = baseOffset;
        this.indexIntervalBytes = indexIntervalBytes;
        this.maxIndexBytes = maxIndexBytes;
        this.logFile = dir.resolve(fileName(baseOffset, LOG_SUFFIX) + suffix);
        this.channel = FileChannel.open(logFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        this.offsetIndex = new OffsetIndex(dir.resolve(fileName(baseOffset, INDEX_SUFFIX) + suffix), baseOffset, maxIndexBytes);
        this.timeIndex = new TimeIndex(dir.resolve(fileName(baseOffset, TIME_INDEX_SUFFIX) + suffix), baseOffset, maxIndexBytes);
        long length = channel.size();
        if (length > Integer.MAX_VALUE) {
            throw new IOException(logFile + " is larger than 2 GiB");
        }
        this.size = (int) length;
        this.nextOffset = baseOffset;
        this.rollBaseMs = nowMs;
    }

    /** Creates a new empty segment (its indexes preallocated). */
    static LogSegment create(Path dir, long baseOffset, LogConfig config, long nowMs) throws IOException {
        return create(dir, baseOffset, config, nowMs, "");
    }

    /** Creates a new empty segment whose files carry a suffix (the cleaner writes ".cleaned" ones). */
    static LogSegment create(Path dir, long baseOffset, LogConfig config, long nowMs, String suffix) throws IOException {
        Path log = dir.resolve(fileName(baseOffset, LOG_SUFFIX) + suffix);
        Files.deleteIfExists(log);
        Files.deleteIfExists(dir.resolve(fileName(baseOffset, INDEX_SUFFIX) + suffix));
        Files.deleteIfExists(dir.resolve(fileName(baseOffset, TIME_INDEX_SUFFIX) + suffix));
        return new LogSegment(dir, baseOffset, config.indexIntervalBytes(), config.segmentIndexBytes(), nowMs, suffix);
    }

    /**
     * Opens an existing segment. Its indexes are taken as they are; the loader checks them ({@link #indexesAreSane()})
     * and calls {@link #loadTail()} or {@link #recover()}.
     */
    static LogSegment open(Path dir, long baseOffset, LogConfig config, long nowMs) throws IOException {
        return new LogSegment(dir, baseOffset, config.indexIntervalBytes(), config.segmentIndexBytes(), nowMs, "");
    }

    /** The offset in 20 digits, zero-padded (as Kafka names its files), then the suffix; without a Formatter. */
    static String fileName(long baseOffset, String suffix) {
        if (baseOffset < 0) {
            throw new IllegalArgumentException("negative base offset " + baseOffset);
        }
        String digits = Long.toString(baseOffset);
        return "0".repeat(20 - digits.length()) + digits + suffix;
    }

    long baseOffset() {
        return baseOffset;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The offset after the last batch (the base offset when empty). */
    long nextOffset() {
        return nextOffset;
    }

    long rollBaseMs() {
        return rollBaseMs;
    }

    Path logFile() {
        return logFile;
    }

    FileChannel channel() {
        return channel;
    }

    OffsetIndex offsetIndex() {
        return offsetIndex;
    }

    TimeIndex timeIndex() {
        return timeIndex;
    }

    /** The largest batch max timestamp in the segment, or the file's modification time if it has none. */
    long largestTimestamp() throws IOException {
        long max = maxTimestampSoFar;
        if (max >= 0) {
            return max;
        }
        TimeIndex.Entry last = timeIndex.lastEntry();
        if (last != null) {
            return last.timestamp();
        }
        return Files.getLastModifiedTime(logFile).toMillis();
    }

    boolean indexIsFull() {
        return offsetIndex.isFull() || timeIndex.isFull();
    }

    /**
     * Appends whole, validated batches (offsets already assigned, above this segment's end). Index entries are
     * added at most every {@code index.interval.bytes}; they are written after the bytes.
     */
    void append(ByteBuffer batches, long nowMs) throws IOException {
        int start = size;
        int length = batches.remaining();
        if ((long) start + length > Integer.MAX_VALUE) {
            throw new IllegalStateException("segment " + baseOffset + " would pass 2 GiB");
        }
        ByteBuffer src = batches.duplicate();
        long pos = start;
        while (src.hasRemaining()) {
            pos += channel.write(src, pos);
        }
        if (start == 0) {
            rollBaseMs = nowMs;
        }
        int p = batches.position();
        int end = batches.limit();
        while (p < end) {
            RecordBatch batch = RecordBatch.view(batches, p);
            onBatchAppended(batch.baseOffset(), batch.lastOffset(), batch.maxTimestamp(), start + (p - batches.position()),
                batch.sizeInBytes());
            p += batch.sizeInBytes();
        }
        size = start + length;
    }

    private void onBatchAppended(long base, long last, long maxTimestamp, int position, int batchSize) throws IOException {
        if (maxTimestamp > maxTimestampSoFar) {
            maxTimestampSoFar = maxTimestamp;
            offsetOfMaxTimestampSoFar = last;
        }
        if (bytesSinceLastIndexEntry > indexIntervalBytes && !offsetIndex.isFull()) {
            offsetIndex.append(base, position);
            timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar);
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += batchSize;
        nextOffset = last + 1;
    }

    /** Reads {@code dst.remaining()} bytes at {@code position} unless the file ends first; returns bytes read. */
    int readAt(ByteBuffer dst, long position) throws IOException {
        int start = dst.position();
        long pos = position;
        while (dst.hasRemaining()) {
            int n = channel.read(dst, pos);
            if (n < 0) {
                break;
            }
            pos += n;
        }
        return dst.position() - start;
    }

    /** Base offset, size, last offset and record count of the batch at a position, read from its header. */
    record BatchHeader(int position, long baseOffset, int sizeInBytes, long lastOffset, long maxTimestamp, int recordCount) {
    }

    private BatchHeader headerAt(int position, int maxPosition, ByteBuffer scratch) throws IOException {
        if (maxPosition - position < RecordBatch.HEADER_SIZE) {
            return null;
        }
        scratch.clear();
        if (readAt(scratch, position) < RecordBatch.HEADER_SIZE) {
            return null;
        }
        long base = scratch.getLong(RecordBatch.BASE_OFFSET_OFFSET);
        int batchSize = RecordBatch.LOG_OVERHEAD + scratch.getInt(RecordBatch.LENGTH_OFFSET);
        if (batchSize < RecordBatch.HEADER_SIZE || batchSize > maxPosition - position) {
            return null;
        }
        long last = base + scratch.getInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET);
        return new BatchHeader(position, base, batchSize, last, scratch.getLong(RecordBatch.MAX_TIMESTAMP_OFFSET),
            scratch.getInt(RecordBatch.RECORD_COUNT_OFFSET));
    }

    private static ByteBuffer newHeaderScratch() {
        return ByteBuffer.allocate(RecordBatch.HEADER_SIZE).order(ByteOrder.BIG_ENDIAN);
    }

    /** The first batch, at or after the index's hint, whose last offset is >= {@code offset}; null if none before maxPosition. */
    BatchHeader translateOffset(long offset, int maxPosition) throws IOException {
        ByteBuffer scratch = newHeaderScratch();
        int pos = offset <= baseOffset ? 0 : offsetIndex.lookup(offset).position();
        while (true) {
            BatchHeader h = headerAt(pos, maxPosition, scratch);
            if (h == null) {
                return null;
            }
            if (h.lastOffset() >= offset) {
                return h;
            }
            pos += h.sizeInBytes();
        }
    }

    /**
     * The whole batches from the one holding {@code startOffset}, up to {@code maxBytes} (at least one batch when
     * {@code minOneBatch}), stopping before a batch starting at or after {@code maxOffsetExclusive} and at
     * {@code maxPosition}. Null if nothing qualifies.
     */
    FileSlice read(long startOffset, int maxBytes, long maxOffsetExclusive, int maxPosition, boolean minOneBatch) throws IOException {
        BatchHeader first = translateOffset(startOffset, maxPosition);
        if (first == null || first.baseOffset() >= maxOffsetExclusive && first.baseOffset() >= startOffset) {
            return null;
        }
        if (first.sizeInBytes() > maxBytes && !minOneBatch) {
            return null;
        }
        ByteBuffer scratch = newHeaderScratch();
        int end = first.position() + first.sizeInBytes();
        int records = first.recordCount();
        while (true) {
            BatchHeader h = headerAt(end, maxPosition, scratch);
            if (h == null || h.baseOffset() >= maxOffsetExclusive || end + h.sizeInBytes() - first.position() > maxBytes) {
                break;
            }
            end += h.sizeInBytes();
            records += h.recordCount();
        }
        return new FileSlice(channel, first.position(), end - first.position(), records);
    }

    /** Visits whole batches from {@code fromPosition}; each is read into its own buffer. Stops when the visitor says so. */
    interface BatchVisitor {
        boolean visit(RecordBatch batch, int position) throws IOException;
    }

    void forEachBatch(int fromPosition, int maxPosition, BatchVisitor visitor) throws IOException {
        ByteBuffer scratch = newHeaderScratch();
        int pos = fromPosition;
        while (true) {
            BatchHeader h = headerAt(pos, maxPosition, scratch);
            if (h == null) {
                return;
            }
            ByteBuffer whole = ByteBuffer.allocate(h.sizeInBytes());
            if (readAt(whole, pos) < h.sizeInBytes()) {
                return;
            }
            whole.flip();
            if (!visitor.visit(RecordBatch.view(whole, 0), pos)) {
                return;
            }
            pos += h.sizeInBytes();
        }
    }

    /** Told each batch's base offset and partition leader epoch. */
    interface EpochVisitor {
        void visit(long baseOffset, int partitionLeaderEpoch);
    }

    /** Visits every whole batch up to the segment's size in file order, reading only the headers. */
    void forEachBatchEpoch(EpochVisitor visitor) throws IOException {
        ByteBuffer scratch = newHeaderScratch();
        int max = size;
        int pos = 0;
        while (true) {
            BatchHeader h = headerAt(pos, max, scratch);
            if (h == null) {
                return;
            }
            visitor.visit(h.baseOffset(), scratch.getInt(RecordBatch.PARTITION_LEADER_EPOCH_OFFSET));
            pos += h.sizeInBytes();
        }
    }

    /**
     * Rebuilds the indexes from the file, checking every batch (whole, magic 2, length within the file, CRC32C, offsets
     * rising); cuts the file at the first batch that fails. Returns the bytes cut.
     */
    int recover() throws IOException {
        offsetIndex.reset();
        timeIndex.reset();
        offsetIndex.resize(maxIndexBytes);
        timeIndex.resize(maxIndexBytes);
        maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
        offsetOfMaxTimestampSoFar = -1;
        bytesSinceLastIndexEntry = 0;
        nextOffset = baseOffset;
        int fileSize = (int) Math.min(channel.size(), Integer.MAX_VALUE);
        ByteBuffer scratch = newHeaderScratch();
        ByteBuffer body = ByteBuffer.allocate(64 * 1024);
        CRC32C crc = new CRC32C();
        int pos = 0;
        while (true) {
            BatchHeader h = headerAt(pos, fileSize, scratch);
            if (h == null || scratch.get(RecordBatch.MAGIC_OFFSET) != RecordBatch.CURRENT_MAGIC
                || h.baseOffset() < nextOffset || h.lastOffset() < h.baseOffset()) {
                break;
            }
            if (body.capacity() < h.sizeInBytes()) {
                body = ByteBuffer.allocate(h.sizeInBytes());
            }
            body.clear().limit(h.sizeInBytes());
            if (readAt(body, pos) < h.sizeInBytes()) {
                break;
            }
            crc.reset();
            crc.update(body.array(), RecordBatch.ATTRIBUTES_OFFSET, h.sizeInBytes() - RecordBatch.ATTRIBUTES_OFFSET);
            if (crc.getValue() != (body.getInt(RecordBatch.CRC_OFFSET) & 0xffffffffL)) {
                break;
            }
            onBatchAppended(h.baseOffset(), h.lastOffset(), h.maxTimestamp(), pos, h.sizeInBytes());
            pos += h.sizeInBytes();
        }
        int cut = fileSize - pos;
        if (cut > 0) {
            channel.truncate(pos);
        }
        size = pos;
        return cut;
    }

    /**
     * For a segment whose indexes are trusted (a clean shutdown or a flushed segment): finds the end offset and the
     * max timestamp by reading only the batches after the last index entry.
     */
    void loadTail() throws IOException {
        OffsetIndex.Position last = offsetIndex.lastEntry();
        TimeIndex.Entry lastTime = timeIndex.lastEntry();
        if (lastTime != null) {
            maxTimestampSoFar = lastTime.timestamp();
            offsetOfMaxTimestampSoFar = lastTime.offset();
        }
        nextOffset = baseOffset;
        bytesSinceLastIndexEntry = 0;
        ByteBuffer scratch = newHeaderScratch();
        int pos = last.position();
        int fileSize = size;
        while (true) {
            BatchHeader h = headerAt(pos, fileSize, scratch);
            if (h == null) {
                break;
            }
            if (h.maxTimestamp() > maxTimestampSoFar) {
                maxTimestampSoFar = h.maxTimestamp();
                offsetOfMaxTimestampSoFar = h.lastOffset();
            }
            bytesSinceLastIndexEntry += h.sizeInBytes();
            nextOffset = h.lastOffset() + 1;
            pos += h.sizeInBytes();
        }
        if (pos != fileSize) {
            throw new IOException(logFile + " has " + (fileSize - pos) + " bytes after its last whole batch");
        }
    }

    boolean indexesAreSane() {
        if (size > 0 && (offsetIndex.wasCreated() || timeIndex.wasCreated())) {
            return false; // a missing index of a non-empty segment
        }
        return offsetIndex.isSane(size) && timeIndex.isSane(size);
    }

    /**
     * Removes every batch whose last offset is >= {@code offset} (a batch holding it is removed whole). Returns the
     * bytes removed. The segment's next offset becomes min(offset, base of the first removed batch).
     */
    int truncateTo(long offset) throws IOException {
        BatchHeader h = translateOffset(offset, size);
        if (h == null) {
            return 0;
        }
        int removed = size - h.position();
        offsetIndex.truncateToOffset(h.baseOffset());
        timeIndex.truncateToOffset(h.baseOffset());
        channel.truncate(h.position());
        size = h.position();
        // rescan the tail for the new end and max timestamp (at most one index interval plus what the index misses)
        maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
        offsetOfMaxTimestampSoFar = -1;
        loadTail();
        nextOffset = size == 0 ? Math.min(offset, h.baseOffset()) : Math.max(nextOffset, Math.min(offset, h.baseOffset()));
        if (size == 0) {
            bytesSinceLastIndexEntry = 0;
        }
        return removed;
    }

    /** Writes the final time-index entry and trims both indexes: called when a newer segment takes over. */
    void onBecomeInactive() throws IOException {
        if (offsetOfMaxTimestampSoFar >= 0) {
            timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar);
        }
        offsetIndex.trimToEntries();
        timeIndex.trimToEntries();
    }

    /** Grows the indexes back to their preallocated size: for the last segment when a log is opened. */
    void onBecomeActive(int maxIndexBytes) throws IOException {
        offsetIndex.resize(maxIndexBytes);
        timeIndex.resize(maxIndexBytes);
    }

    /**
     * The first record at or after {@code startingOffset} whose timestamp is >= {@code timestamp}, if this segment
     * has one below {@code maxPosition}.
     */
    TimestampOffset findOffsetByTimestamp(long timestamp, long startingOffset, int maxPosition) throws IOException {
        TimeIndex.Entry hint = timeIndex.lookup(timestamp);
        long from = Math.max(hint.offset(), startingOffset);
        BatchHeader start = translateOffset(from, maxPosition);
        if (start == null) {
            return null;
        }
        TimestampOffset[] found = new TimestampOffset[1];
        forEachBatch(start.position(), maxPosition, (batch, position) -> {
            if (batch.maxTimestamp() < timestamp) {
                return true;
            }
            for (Record r : batch.records()) {
                if (r.timestamp() >= timestamp && r.offset() >= startingOffset) {
                    found[0] = new TimestampOffset(r.timestamp(), r.offset());
                    return false;
                }
            }
            return true;
        });
        return found[0];
    }

    void flush() throws IOException {
        channel.force(false);
        offsetIndex.flush();
        timeIndex.flush();
    }

    void close() throws IOException {
        try {
            offsetIndex.close();
            timeIndex.close();
        } finally {
            channel.close();
        }
    }

    /** Renames the files to {@code *.deleted}; the channel stays open for readers until {@link #deleteFiles()}. */
    void renameForDeletion() throws IOException {
        Path deleted = logFile.resolveSibling(logFile.getFileName() + DELETED_SUFFIX);
        Files.move(logFile, deleted, StandardCopyOption.REPLACE_EXISTING);
        logFile = deleted;
        offsetIndex.renameTo(offsetIndex.file().resolveSibling(offsetIndex.file().getFileName() + DELETED_SUFFIX));
        timeIndex.renameTo(timeIndex.file().resolveSibling(timeIndex.file().getFileName() + DELETED_SUFFIX));
    }

    /** Closes and deletes the files, wherever they are now. */
    void deleteFiles() throws IOException {
        offsetIndex.closeQuietly();
        timeIndex.closeQuietly();
        channel.close();
        Files.deleteIfExists(logFile);
        Files.deleteIfExists(offsetIndex.file());
        Files.deleteIfExists(timeIndex.file());
    }

    /** Renames the files of a ".cleaned" segment to their final names, replacing the old segment's files. */
    void promoteCleaned() throws IOException {
        Path target = logFile.resolveSibling(fileName(baseOffset, LOG_SUFFIX));
        Files.move(logFile, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        logFile = target;
        offsetIndex.renameTo(target.resolveSibling(fileName(baseOffset, INDEX_SUFFIX)));
        timeIndex.renameTo(target.resolveSibling(fileName(baseOffset, TIME_INDEX_SUFFIX)));
    }

    @Override
    public String toString() {
        return "LogSegment(base=" + baseOffset + ", size=" + size + ", next=" + nextOffset + ")";
    }
}
