package io.raftline.broker.log;

import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * A replica's CRC32C over its stored batches in an offset range: the batches that start at or after {@code from} and
 * end below {@code to}, byte for byte as stored. A follower stores the leader's batches unchanged, so two replicas
 * that agree on a range have the same checksum over it; {@code raftline verify} compares them this way instead of
 * reading another host's files.
 */
public final class LogChecksum {

    /** What a range's checksum covered: [{@code from}, {@code to}), {@code batches} of them. */
    public record Result(long from, long to, long crc32c, long batches) {
    }

    private static final int CHUNK_BYTES = 1 << 20;

    private LogChecksum() {
    }

    /**
     * @param from the first offset wanted (clipped to the log start)
     * @param to one past the last offset wanted (clipped to the log end)
     * @throws LogException STORAGE_ERROR if the log is offline
     */
    public static Result compute(Log log, long from, long to) {
        CRC32C crc = new CRC32C();
        long start = Math.max(from, log.logStartOffset());
        long end = Math.min(to, log.logEndOffset());
        long offset = start;
        long first = -1;
        long last = start;
        long batches = 0;
        while (offset < end) {
            ByteBuffer chunk = log.read(offset, CHUNK_BYTES, end, true).readIntoBuffer();
            long next = offset;
            for (RecordBatch batch : Records.batches(chunk)) {
                next = batch.nextOffset();
                if (batch.baseOffset() < start || batch.lastOffset() >= end) {
                    continue;
                }
                ByteBuffer bytes = chunk.duplicate();
                bytes.limit(batch.position() + batch.sizeInBytes()).position(batch.position());
                crc.update(bytes);
                if (first < 0) {
                    first = batch.baseOffset();
                }
                last = batch.nextOffset();
                batches++;
            }
            if (next == offset) {
                break;
            }
            offset = next;
        }
        return new Result(first < 0 ? start : first, first < 0 ? start : last, crc.getValue(), batches);
    }
}
