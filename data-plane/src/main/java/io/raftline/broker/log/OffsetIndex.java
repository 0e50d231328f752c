package io.raftline.broker.log;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The sparse offset index of a segment: {@code <base offset>.index}. File format: a sequence of 8-byte entries,
 * big-endian, sorted by offset with strictly rising offsets and positions:
 * <pre>
 *   int32 relativeOffset   batch base offset - segment base offset
 *   int32 position         byte position of that batch in the .log file
 * </pre>
 * An entry is added at most every {@code index.interval.bytes} of appended data, so a lookup finds the nearest
 * batch at or before an offset and the log is scanned from there. The file is preallocated while the segment is
 * active and trimmed to its entries afterwards; an untrimmed file after a crash is rebuilt by recovery.
 */
final class OffsetIndex extends MappedIndex {

    static final int ENTRY_SIZE = 8;

    /** The nearest indexed batch at or before an offset (the segment start when none is). */
    record Position(long offset, int position) {
    }

    OffsetIndex(Path file, long baseOffset, int maxIndexBytes) throws IOException {
        this(file, baseOffset, maxIndexBytes, IndexDescriptors.PROCESS);
    }

    OffsetIndex(Path file, long baseOffset, int maxIndexBytes, IndexDescriptors descriptors) throws IOException {
        super(file, baseOffset, maxIndexBytes, ENTRY_SIZE, descriptors);
    }

    @Override
    protected long keyAt(int i) {
        return mmap.getInt(i * ENTRY_SIZE);
    }

    private int positionAt(int i) {
        return mmap.getInt(i * ENTRY_SIZE + 4);
    }

    /** The last indexed batch whose base offset is <= {@code offset}, or the segment start. */
    Position lookup(long offset) {
        int i = largestLowerBound(offset - baseOffset);
        return i < 0 ? new Position(baseOffset, 0) : new Position(baseOffset + keyAt(i), positionAt(i));
    }

    /** The last entry, or the segment start when empty. */
    Position lastEntry() {
        int n = entries;
        return n == 0 ? new Position(baseOffset, 0) : new Position(baseOffset + keyAt(n - 1), positionAt(n - 1));
    }

    /** Adds an entry; offsets and positions must rise (a broken invariant otherwise). */
    void append(long offset, int position) throws IOException {
        long relative = offset - baseOffset;
        if (relative < 0 || relative > Integer.MAX_VALUE) {
            throw new IllegalStateException("offset " + offset + " does not fit the index of segment " + baseOffset);
        }
        int n = entries;
        if (n > 0 && (relative <= keyAt(n - 1) || position <= positionAt(n - 1))) {
            throw new IllegalStateException("index entry (" + offset + ", " + position + ") does not follow ("
                + (baseOffset + keyAt(n - 1)) + ", " + positionAt(n - 1) + ") in " + file());
        }
        if (isFull()) {
            throw new IllegalStateException("index " + file() + " is full");
        }
        entryBuffer().putInt((int) relative).putInt(position);
        writeEntry(n);
        entries = n + 1;
    }

    /** Drops entries for batches starting at or after {@code offset}. */
    void truncateToOffset(long offset) {
        truncateEntries(smallestUpperBound(offset - baseOffset));
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
        if (n == 0) {
            return true;
        }
        // An untrimmed (preallocated) file ends in zero entries, which are out of order after the first.
        boolean ordered = n == 1 || (keyAt(n - 1) > keyAt(n - 2) && positionAt(n - 1) > positionAt(n - 2));
        return ordered && keyAt(0) >= 0 && positionAt(n - 1) < logSizeBytes;
    }
}
