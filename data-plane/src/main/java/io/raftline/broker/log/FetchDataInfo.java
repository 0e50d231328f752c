package io.raftline.broker.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.List;

/**
 * The answer to a log read: whole stored batches as file slices, not decoded. {@code slices} is empty when there
 * is nothing to return (the fetch offset is the end of the log or the upper bound).
 */
public record FetchDataInfo(long fetchOffset, List<FileSlice> slices) {

    public static FetchDataInfo empty(long fetchOffset) {
        return new FetchDataInfo(fetchOffset, List.of());
    }

    public int sizeInBytes() {
        int total = 0;
        for (FileSlice s : slices) {
            total += s.size();
        }
        return total;
    }

    /** The records in the slices, as their batch headers count them. */
    public long recordCount() {
        long total = 0;
        for (FileSlice s : slices) {
            total += s.records();
        }
        return total;
    }

    public boolean isEmpty() {
        return slices.isEmpty();
    }

    /** Sends every slice with transferTo; returns the bytes written. */
    public long writeTo(WritableByteChannel target) throws IOException {
        long written = 0;
        for (FileSlice s : slices) {
            written += s.writeTo(target);
        }
        return written;
    }

    /**
     * Copies the bytes into a new heap buffer (position 0, limit = size): for callers that need them in memory,
     * such as a gRPC message.
     *
     * @throws UncheckedIOException if the file cannot be read
     */
    public ByteBuffer readIntoBuffer() {
        ByteBuffer out = ByteBuffer.allocate(sizeInBytes());
        try {
            for (FileSlice s : slices) {
                s.readInto(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.flip();
    }
}
