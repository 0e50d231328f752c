package io.raftline.record;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Helpers over a buffer holding zero or more whole batches back to back, from its position to its limit. A fetch
 * response may end in the middle of a batch: iteration stops before such a partial trailing batch rather than
 * failing, and consumers simply fetch again from the next offset.
 */
public final class Records {

    private Records() {
    }

    /**
     * The batches from {@code buf.position()} to {@code buf.limit()}, as views (the buffer is not moved or copied).
     * Iteration ends at the limit or before a partial trailing batch. CRCs are not checked here.
     *
     * @throws RecordFormatException CORRUPT_MESSAGE (from next/hasNext) at a length field smaller than a header
     */
    public static Iterable<RecordBatch> batches(ByteBuffer buf) {
        int start = buf.position();
        int end = buf.limit();
        return () -> new BatchIterator(buf, start, end);
    }

    /**
     * Bytes, from the position, covered by whole batches that have magic 2 and a correct CRC, up to the first one
     * that is partial or bad.
     */
    public static int validBytes(ByteBuffer buf) {
        int pos = buf.position();
        int end = buf.limit();
        while (end - pos >= RecordBatch.HEADER_SIZE) {
            RecordBatch batch = RecordBatch.view(buf, pos);
            if (batch.magic() != RecordBatch.CURRENT_MAGIC || !batch.isValid()) {
                break;
            }
            pos += batch.sizeInBytes();
        }
        return pos - buf.position();
    }

    /** Bytes, from the position, covered by whole batches (by their length fields only; nothing else is checked). */
    public static int wholeBatchBytes(ByteBuffer buf) {
        return (int) walkWholeBatches(buf, false);
    }

    /**
     * Records in the whole batches from the position (the sum of their record-count fields; a partial trailing
     * batch counts nothing, and nothing else is checked): what a metric counts without decoding a record.
     */
    public static long recordCount(ByteBuffer buf) {
        return walkWholeBatches(buf, true);
    }

    /** Walks whole batches by their length fields; returns their bytes, or with {@code records} their record counts. */
    private static long walkWholeBatches(ByteBuffer buf, boolean records) {
        int pos = buf.position();
        int end = buf.limit();
        long count = 0;
        while (end - pos >= RecordBatch.HEADER_SIZE) {
            int length = buf.getInt(pos + RecordBatch.LENGTH_OFFSET);
            if (length < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD || length > end - pos - RecordBatch.LOG_OVERHEAD) {
                break;
            }
            count += Math.max(0, buf.getInt(pos + RecordBatch.RECORD_COUNT_OFFSET));
            pos += RecordBatch.LOG_OVERHEAD + length;
        }
        return records ? count : pos - buf.position();
    }

    private static final class BatchIterator implements Iterator<RecordBatch> {
        private final ByteBuffer buf;
        private final int end;
        private int pos;
        private RecordBatch next;

        BatchIterator(ByteBuffer buf, int start, int end) {
            this.buf = buf;
            this.pos = start;
            this.end = end;
        }

        @Override
        public boolean hasNext() {
            if (next != null) {
                return true;
            }
            if (end - pos < RecordBatch.HEADER_SIZE) {
                return false;
            }
            int length = buf.getInt(pos + RecordBatch.LENGTH_OFFSET);
            if (length < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD) {
                throw ByteReader.corrupt("batch length " + length + " at position " + pos + " is smaller than a batch header");
            }
            if (length > end - pos - RecordBatch.LOG_OVERHEAD) {
                return false;
            }
            next = RecordBatch.view(buf, pos);
            pos += RecordBatch.LOG_OVERHEAD + length;
            return true;
        }

        @Override
        public RecordBatch next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            RecordBatch b = next;
            next = null;
            return b;
        }
    }
}
