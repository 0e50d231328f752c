package io.raftline.record;

import io.raftline.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.zip.CRC32C;

/**
 * A zero-copy view of one record batch inside a buffer, addressed by absolute positions: nothing is copied and
 * the buffer's own position and limit are never moved. The layout is in BATCH_FORMAT.md beside this class.
 *
 * <p>The view trusts nothing beyond the fixed header: {@link #isValid()} checks the length and the CRC, and the
 * record iterator checks every read against the batch end. The setters write into the buffer, which therefore
 * must be writable. A view is not thread-safe if anyone writes through it.
 */
public final class RecordBatch {

    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int LENGTH_OFFSET = 8;
    public static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    public static final int MAGIC_OFFSET = 16;
    public static final int CRC_OFFSET = 17;
    public static final int ATTRIBUTES_OFFSET = 21;
    public static final int LAST_OFFSET_DELTA_OFFSET = 23;
    public static final int BASE_TIMESTAMP_OFFSET = 27;
    public static final int MAX_TIMESTAMP_OFFSET = 35;
    public static final int PRODUCER_ID_OFFSET = 43;
    public static final int PRODUCER_EPOCH_OFFSET = 51;
    public static final int BASE_SEQUENCE_OFFSET = 53;
    public static final int RECORD_COUNT_OFFSET = 57;
    public static final int RECORDS_OFFSET = 61;

    /** Bytes of the fixed header; the smallest possible batch (it would hold no records). */
    public static final int HEADER_SIZE = RECORDS_OFFSET;
    /** Bytes before the part that {@code batchLength} counts: baseOffset and batchLength themselves. */
    public static final int LOG_OVERHEAD = PARTITION_LEADER_EPOCH_OFFSET;
    public static final byte CURRENT_MAGIC = 2;

    public static final int COMPRESSION_CODEC_MASK = 0x07;
    public static final int TIMESTAMP_TYPE_MASK = 0x08;
    /** Attribute bits this version defines; a batch with any other bit set is refused. */
    public static final int KNOWN_ATTRIBUTES_MASK = COMPRESSION_CODEC_MASK | TIMESTAMP_TYPE_MASK;

    public static final long NO_PRODUCER_ID = -1L;
    public static final short NO_PRODUCER_EPOCH = -1;
    public static final int NO_SEQUENCE = -1;
    public static final int NO_PARTITION_LEADER_EPOCH = -1;
    public static final long NO_TIMESTAMP = -1L;

    private final ByteBuffer buf;
    private final int pos;

    private RecordBatch(ByteBuffer buf, int pos) {
        this.buf = buf;
        this.pos = pos;
    }

    /**
     * A view of the batch starting at absolute {@code position}.
     *
     * @throws IllegalArgumentException if the fixed header does not fit before the buffer's limit
     */
    public static RecordBatch view(ByteBuffer buf, int position) {
        if (position < 0 || position > buf.limit() - HEADER_SIZE) {
            throw new IllegalArgumentException("no whole batch header at position " + position + " (limit " + buf.limit() + ")");
        }
        return new RecordBatch(buf, position);
    }

    /** The buffer this view reads. */
    public ByteBuffer buffer() {
        return buf;
    }

    /** The absolute position of the batch in {@link #buffer()}. */
    public int position() {
        return pos;
    }

    public long baseOffset() {
        return buf.getLong(pos + BASE_OFFSET_OFFSET);
    }

    public long lastOffset() {
        return baseOffset() + lastOffsetDelta();
    }

    /** The offset after this batch. */
    public long nextOffset() {
        return lastOffset() + 1;
    }

    /** The batch's length field: bytes after the length field itself. */
    public int batchLength() {
        return buf.getInt(pos + LENGTH_OFFSET);
    }

    /** The whole batch's size, header included, as its length field claims it. */
    public int sizeInBytes() {
        return LOG_OVERHEAD + batchLength();
    }

    public int partitionLeaderEpoch() {
        return buf.getInt(pos + PARTITION_LEADER_EPOCH_OFFSET);
    }

    public byte magic() {
        return buf.get(pos + MAGIC_OFFSET);
    }

    /** The stored CRC32C, as an unsigned 32-bit value. */
    public long checksum() {
        return buf.getInt(pos + CRC_OFFSET) & 0xffffffffL;
    }

    public short attributes() {
        return buf.getShort(pos + ATTRIBUTES_OFFSET);
    }

    /** @throws RecordFormatException UNSUPPORTED_FORMAT for a codec id no codec has */
    public CompressionType compressionType() {
        int id = attributes() & COMPRESSION_CODEC_MASK;
        if (id > CompressionType.ZSTD.id()) {
            throw new RecordFormatException(ErrorCode.UNSUPPORTED_FORMAT, "unknown compression codec id " + id);
        }
        return CompressionType.forId(id);
    }

    public TimestampType timestampType() {
        return (attributes() & TIMESTAMP_TYPE_MASK) == 0 ? TimestampType.CREATE_TIME : TimestampType.LOG_APPEND_TIME;
    }

    public int lastOffsetDelta() {
        return buf.getInt(pos + LAST_OFFSET_DELTA_OFFSET);
    }

    public long baseTimestamp() {
        return buf.getLong(pos + BASE_TIMESTAMP_OFFSET);
    }

    public long maxTimestamp() {
        return buf.getLong(pos + MAX_TIMESTAMP_OFFSET);
    }

    public long producerId() {
        return buf.getLong(pos + PRODUCER_ID_OFFSET);
    }

    public short producerEpoch() {
        return buf.getShort(pos + PRODUCER_EPOCH_OFFSET);
    }

    public int baseSequence() {
        return buf.getInt(pos + BASE_SEQUENCE_OFFSET);
    }

    /** The sequence of the last record ({@link #NO_SEQUENCE} without one); sequences wrap after Integer.MAX_VALUE. */
    public int lastSequence() {
        int base = baseSequence();
        if (base == NO_SEQUENCE) {
            return NO_SEQUENCE;
        }
        long last = (long) base + lastOffsetDelta();
        return last > Integer.MAX_VALUE ? (int) (last - Integer.MAX_VALUE - 1) : (int) last;
    }

    public int recordCount() {
        return buf.getInt(pos + RECORD_COUNT_OFFSET);
    }

    public boolean isCompressed() {
        return (attributes() & COMPRESSION_CODEC_MASK) != 0;
    }

    /** Stamps the base offset in place. Outside the CRC, so the CRC stays valid. */
    public void setBaseOffset(long baseOffset) {
        buf.putLong(pos + BASE_OFFSET_OFFSET, baseOffset);
    }

    /** Stamps the partition leader epoch in place. Outside the CRC, so the CRC stays valid. */
    public void setPartitionLeaderEpoch(int epoch) {
        buf.putInt(pos + PARTITION_LEADER_EPOCH_OFFSET, epoch);
    }

    /**
     * Sets the max timestamp and the timestamp type bit in place, then recomputes the CRC (both fields are
     * inside it). The broker uses this for LogAppendTime topics. Requires the whole batch in the buffer.
     */
    public void setMaxTimestampAndType(long maxTimestamp, TimestampType type) {
        requireWhole();
        short attrs = attributes();
        short newAttrs = (short) (type == TimestampType.LOG_APPEND_TIME ? attrs | TIMESTAMP_TYPE_MASK : attrs & ~TIMESTAMP_TYPE_MASK);
        if (maxTimestamp == maxTimestamp() && newAttrs == attrs) {
            return;
        }
        buf.putLong(pos + MAX_TIMESTAMP_OFFSET, maxTimestamp);
        buf.putShort(pos + ATTRIBUTES_OFFSET, newAttrs);
        buf.putInt(pos + CRC_OFFSET, (int) computeChecksum());
    }

    /** The CRC32C of the bytes from the attributes to the batch end (requires the whole batch). */
    public long computeChecksum() {
        requireWhole();
        return crc32c(buf, pos + ATTRIBUTES_OFFSET, pos + sizeInBytes());
    }

    static long crc32c(ByteBuffer buf, int from, int to) {
        CRC32C crc = new CRC32C();
        ByteBuffer region = buf.duplicate();
        region.limit(to).position(from);
        crc.update(region);
        return crc.getValue();
    }

    /** True if the length is sane, the whole batch is in the buffer, and the stored CRC matches. */
    public boolean isValid() {
        int size = sizeInBytes();
        return batchLength() >= HEADER_SIZE - LOG_OVERHEAD
            && size <= buf.limit() - pos
            && checksum() == crc32c(buf, pos + ATTRIBUTES_OFFSET, pos + size);
    }

    /** @throws RecordFormatException CORRUPT_MESSAGE if {@link #isValid()} is false, naming why */
    public void ensureValid() {
        int length = batchLength();
        if (length < HEADER_SIZE - LOG_OVERHEAD) {
            throw ByteReader.corrupt("batch length " + length + " is smaller than the header");
        }
        if (sizeInBytes() > buf.limit() - pos) {
            throw ByteReader.corrupt("batch of " + sizeInBytes() + " bytes is truncated at " + (buf.limit() - pos) + " bytes");
        }
        long computed = computeChecksum();
        if (computed != checksum()) {
            throw ByteReader.corrupt("batch at offset " + baseOffset() + " has CRC " + Long.toHexString(checksum())
                + " but its bytes give " + Long.toHexString(computed));
        }
    }

    /** The batch's bytes as their own buffer (position 0, limit = size), sharing the memory: no copy. */
    public ByteBuffer slice() {
        requireWhole();
        ByteBuffer d = buf.duplicate();
        d.limit(pos + sizeInBytes()).position(pos);
        return d.slice();
    }

    /** The records, decompressed if needed. Each call to iterator() decompresses again. */
    public Iterable<Record> records() {
        return this::iterator;
    }

    /**
     * Iterates the records. A compressed section is decompressed once, when this is called; an uncompressed one is
     * read in place and record keys and values are slices of the buffer.
     *
     * @throws RecordFormatException (from this call or from next()) if the batch is malformed
     */
    public Iterator<Record> iterator() {
        requireWhole();
        int end = pos + sizeInBytes();
        ByteReader reader;
        CompressionType type = compressionType();
        if (type == CompressionType.NONE) {
            reader = new ByteReader(buf, pos + RECORDS_OFFSET, end);
        } else {
            ByteBuffer compressed = buf.duplicate();
            compressed.limit(end).position(pos + RECORDS_OFFSET);
            int hint = Math.max(1024, Math.min(64 << 20, (end - pos - RECORDS_OFFSET) * 4));
            ByteBuffer plain = Compression.decompress(type, compressed, hint);
            reader = new ByteReader(plain, 0, plain.limit());
        }
        return new RecordIterator(reader);
    }

    private void requireWhole() {
        int length = batchLength();
        if (length < HEADER_SIZE - LOG_OVERHEAD || sizeInBytes() > buf.limit() - pos) {
            throw ByteReader.corrupt("batch at position " + pos + " has length " + length + " but only "
                + (buf.limit() - pos - LOG_OVERHEAD) + " bytes follow");
        }
    }

    @Override
    public String toString() {
        return "RecordBatch(baseOffset=" + baseOffset() + ", lastOffset=" + lastOffset() + ", records=" + recordCount()
            + ", size=" + sizeInBytes() + ", epoch=" + partitionLeaderEpoch() + ", attributes=" + attributes() + ")";
    }

    private final class RecordIterator implements Iterator<Record> {
        private final ByteReader reader;
        private final int count;
        private final long baseOffset;
        private final long baseTimestamp;
        private final boolean logAppendTime;
        private final long maxTimestamp;
        private int read;

        RecordIterator(ByteReader reader) {
            this.reader = reader;
            this.count = recordCount();
            this.baseOffset = baseOffset();
            this.baseTimestamp = baseTimestamp();
            this.logAppendTime = timestampType() == TimestampType.LOG_APPEND_TIME;
            this.maxTimestamp = maxTimestamp();
            if (count < 0) {
                throw ByteReader.corrupt("negative record count " + count);
            }
        }

        @Override
        public boolean hasNext() {
            return read < count;
        }

        @Override
        public Record next() {
            if (read >= count) {
                throw new NoSuchElementException();
            }
            Record r = Record.read(reader, baseOffset, baseTimestamp, logAppendTime ? maxTimestamp : NO_TIMESTAMP);
            read++;
            if (read == count && reader.remaining() != 0) {
                throw ByteReader.corrupt(reader.remaining() + " bytes after the last of " + count + " records");
            }
            return r;
        }
    }
}
