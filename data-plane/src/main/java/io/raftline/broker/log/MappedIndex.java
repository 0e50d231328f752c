package io.raftline.broker.log;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A memory-mapped file of fixed-size entries sorted by a key, searched by binary search; the base of
 * {@link OffsetIndex} and {@link TimeIndex}. An active index is preallocated to its maximum size (the tail is
 * zeros and not counted) and trimmed to its entries when its segment stops being active or closes.
 *
 * <p>One writer (the log's append path, under the log's lock); lookups from any thread. An entry is written
 * before the volatile entry count that publishes it, and lookups never read past the count, so a trim (which only
 * cuts space beyond the entries) never pulls mapped memory from under a reader.
 *
 * <p>Entries are written with a positional write on the file's channel, not through the mapping, which is only read
 * (the page cache is shared, so the mapping sees the write once it returns). The preallocated tail is a hole in
 * the file: the first store through a shared mapping into a page of a hole faults into the file system to allocate
 * that block there and then (ext4: {@code page_mkwrite}, measured at 2-6 ms per page here), whereas a write(2)
 * into the hole only reserves it (delayed allocation, microseconds). Every new log's two indexes take that first
 * fault on their first entry, on the produce or replica fetcher thread, so a change of many partitions at once
 * (creation, leadership moves, a produce across all of them) stalled those threads for milliseconds per partition.
 */
abstract class MappedIndex {

    private final int entrySize;
    protected final long baseOffset;
    private volatile Path file;
    /**
     * The file, open only while this index is written or resized (null otherwise): a mapping stays valid without its
     * descriptor, so the indexes of segments no longer written, and of new logs not written yet, hold none — a log
     * holds one descriptor per segment (its .log), as Kafka's do, not three. An active index keeps it between
     * entries only within the process's {@link IndexDescriptors} budget.
     */
    private RandomAccessFile raf;
    /** The budget a descriptor kept open while written counts against. */
    private final IndexDescriptors descriptors;
    /** Whether {@link #raf} holds one of {@link #descriptors}' budget (taken by a write, given back on release). */
    private boolean kept;
    protected volatile MappedByteBuffer mmap;
    protected volatile int entries;
    private int maxEntries;
    private final boolean created;
    /** The entry being written; big-endian like the mapping's reads. Used by the one writer only. */
    private final ByteBuffer entryBuffer;

    /**
     * Opens or creates the index. An existing file's entries are its length / entry size (a trimmed file); callers
     * check it with {@link #isSane(long)} or rebuild it.
     */
    MappedIndex(Path file, long baseOffset, int maxIndexBytes, int entrySize, IndexDescriptors descriptors)
        throws IOException {
        this.entrySize = entrySize;
        this.descriptors = descriptors;
        this.baseOffset = baseOffset;
        this.entryBuffer = ByteBuffer.allocate(entrySize);
        this.file = file;
        boolean existed = Files.exists(file);
        long length = opened().length();
        this.created = !existed;
        if (created) {
            length = roundDown(maxIndexBytes);
            raf.setLength(length);
            this.entries = 0;
        } else {
            this.entries = (int) (length / entrySize);
        }
        map(length);
        release();
    }

    private RandomAccessFile opened() throws IOException {
        if (raf == null) {
            raf = new RandomAccessFile(file.toFile(), "rw");
        }
        return raf;
    }

    private void release() throws IOException {
        if (raf != null) {
            RandomAccessFile open = raf;
            raf = null;
            if (kept) {
                kept = false;
                descriptors.give();
            }
            open.close();
        }
    }

    private long roundDown(long bytes) {
        return Math.max(entrySize, bytes / entrySize * entrySize);
    }

    private void map(long length) throws IOException {
        this.mmap = opened().getChannel().map(FileChannel.MapMode.READ_WRITE, 0, length);
        this.maxEntries = (int) (length / entrySize);
    }

    /** True if the file did not exist when opened. */
    boolean wasCreated() {
        return created;
    }

    Path file() {
        return file;
    }

    int entries() {
        return entries;
    }

    boolean isFull() {
        return entries >= maxEntries;
    }

    int sizeInBytes() {
        return entries * entrySize;
    }

    /**
     * Grows (an index that becomes active) or shrinks the file to {@code maxIndexBytes}, never below its entries; the
     * descriptor is let go (the next write opens the file again).
     */
    void resize(int maxIndexBytes) throws IOException {
        setLengthAndRelease(Math.max(roundDown(maxIndexBytes), (long) entries * entrySize));
    }

    /**
     * Cuts the preallocated tail so the file holds exactly its entries (on roll and close), and lets go of the
     * descriptor: the segment is no longer written (a write that still comes opens the file again).
     */
    void trimToEntries() throws IOException {
        setLengthAndRelease((long) entries * entrySize);
    }

    /** Gives the file this length (mapped again) unless it has it, then lets go of the descriptor. */
    private void setLengthAndRelease(long length) throws IOException {
        if (length != opened().length()) {
            mmap.force();
            raf.setLength(length);
            map(length);
        }
        release();
    }

    /** Forgets every entry (before a rebuild). */
    void reset() {
        entries = 0;
    }

    /** Drops entries from {@code index} on. */
    protected void truncateEntries(int index) {
        entries = Math.min(entries, Math.max(0, index));
    }

    protected int entrySize() {
        return entrySize;
    }

    /**
     * The buffer for the next entry, cleared: the subclass puts one entry's fields, then calls {@link #writeEntry}.
     * One writer only.
     */
    protected ByteBuffer entryBuffer() {
        return entryBuffer.clear();
    }

    /** Writes the filled {@link #entryBuffer} as entry number {@code index}; the caller then publishes the count. */
    protected void writeEntry(int index) throws IOException {
        ByteBuffer entry = entryBuffer.flip();
        if (entry.remaining() != entrySize) {
            throw new IllegalStateException("an index entry of " + entry.remaining() + " bytes, not " + entrySize);
        }
        if (!kept && descriptors.tryTake()) {
            try {
                opened();
            } catch (IOException e) {
                descriptors.give();
                throw e;
            }
            kept = true;
        }
        FileChannel channel = opened().getChannel();
        long pos = (long) index * entrySize;
        try {
            while (entry.hasRemaining()) {
                pos += channel.write(entry, pos);
            }
        } finally {
            if (!kept) {
                release(); // the budget is spent: this entry's descriptor goes with it
            }
        }
    }

    /**
     * Makes the entries durable: an msync of the mapping, which on Linux writes back the file's dirty pages in the
     * mapped range however they were dirtied (the entries come through the channel; the page cache is one). Not the
     * channel's fsync: a log flush works on segments it listed before, outside the log's lock, so the segment may
     * close this index meanwhile, and the mapping stays valid after a close where the channel does not (with the
     * channel's force, LogModelTest's random runs failed in about half the runs: first on flushes that hit closed
     * channels, and with those skipped, on a truncation after a restart that removed a batch it should have kept;
     * why was not traced).
     */
    void flush() {
        mmap.force();
    }

    /** Whether the file length is a whole number of entries and the last entry is plausible for a log of that size. */
    abstract boolean isSane(long logSizeBytes);

    void renameTo(Path target) throws IOException {
        Files.move(file, target, StandardCopyOption.REPLACE_EXISTING);
        file = target;
    }

    void close() throws IOException {
        trimToEntries();
    }

    /** Closes without trimming (the file is about to be deleted). */
    void closeQuietly() {
        try {
            release();
        } catch (IOException ignored) {
            // closing a file we are deleting: nothing useful to do with the error
        }
    }

    boolean fileLengthIsWholeEntries() throws IOException {
        return (raf != null ? raf.length() : Files.size(file)) % entrySize == 0;
    }

    /** Binary search: the largest entry index whose key is <= target, or -1. */
    protected int largestLowerBound(long target) {
        int lo = 0;
        int hi = entries - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (keyAt(mid) <= target) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Binary search: the smallest entry index whose key is >= target, or entries. */
    protected int smallestUpperBound(long target) {
        int lo = 0;
        int hi = entries;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (keyAt(mid) < target) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The search key of entry {@code i}. */
    protected abstract long keyAt(int i);
}
