package io.raftline.broker.log;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The sparse time index of a segment: {@code <base offset>.timeindex}. File format: 12-byte entries, big-endian,
 * with strictly rising timestamps:
 * <pre>
 *   int64 timestamp        the largest batch max timestamp seen in the segment so far
 *   int32 relativeOffset   last offset of the batch that carried it - segment base offset
 * </pre>
 * Entries are added with offset-index entries and once more when the segment stops being active, so the last
 * entry holds the segment's largest timestamp (used by time retention). Preallocated and trimmed like the offset
 * index.
 */
final class TimeIndex extends MappedIndex {

    static final int ENTRY_SIZE = 12;

    /** An entry: a timestamp and the offset it maps to. */
    record Entry(long timestamp, long offset) {
    }

    TimeIndex(Path file, long baseOffset, int maxIndexBytes) throws IOException {
        this(file, baseOffset, maxIndexBytes, IndexDescriptors.PROCESS);
    }

    TimeIndex(Path file, long baseOffset, int maxIndexBytes, IndexDescriptors descriptors) throws IOException {
        super(file, baseOffset, maxIndexBytes, ENTRY_SIZE, descriptors);
    }

    @Override
    protected long keyAt(int i) {
        return mmap.getLong(i * ENTRY_SIZE);
    }

    private long offsetAt(int i) {
        return baseOffset + mmap.getInt(i * ENTRY_SIZE + 8);
    }

    /** The last entry whose timestamp is <= target, or (-1, segment base) if none. */
    Entry lookup(long timestamp) {
        int i = largestLowerBound(timestamp);
        return i < 0 ? new Entry(-1, baseOffset) : new Entry(keyAt(i), offsetAt(i));
    }

    /** The last entry, or null if there is none. */
    Entry lastEntry() {
        int n = entries;
        return n == 0 ? null : new Entry(keyAt(n - 1), offsetAt(n - 1));
    }

    /** Adds an entry if the timestamp is larger than the last one and there is room. */
    void maybeAppend(long timestamp, long offset) throws IOException {
        int n = entries;
        if (n > 0 && (timestamp <= keyAt(n - 1) || offset < offsetAt(n - 1))) {
            return;
        }
        if (isFull() || offset - baseOffset > Integer.MAX_VALUE || offset < baseOffset) {
            return;
        }
        entryBuffer().putLong(timestamp).putInt((int) (offset - baseOffset));
        writeEntry(n);
        entries = n + 1;
    }

    /** Drops entries pointing at or after {@code offset}. */
    void truncateToOffset(long offset) {
        int n = entries;
        int keep = n;
        while (keep > 0 && offsetAt(keep - 1) >= offset) {
            keep--;
        }
        truncateEntries(keep);
    }

    @Override
    boolean isSane(long logSizeBytes) {
        try {
            if (!fileLengthIsWholeEntries()) {
                return false;
            }
        } catch (IOException e) {
            return false;
        }
        int n = entries;
        return n <= 1 || (keyAt(n - 1) > keyAt(n - 2) && offsetAt(n - 1) >= offsetAt(n - 2));
    }
}
