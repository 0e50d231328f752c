package io.raftline.record;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Writes one record batch (the producer's side, and the log cleaner's). Records are encoded straight into one
 * growing heap array behind a reserved header; {@link #build()} compresses the section if a codec is set, fills
 * in the header and the CRC, and hands out the array without another copy.
 *
 * <p>Not thread-safe: one owner appends and builds. After {@code build()} no more records can be added.
 */
public final class RecordBatchBuilder {

    /** What a codec may add over the input at most for the sizes we use (frame headers, block trailers). */
    private static final int COMPRESSION_OVERHEAD_BYTES = 64;
    private static final byte[][] NO_HEADER_KEYS = new byte[0][];

    private final CompressionType compression;
    private final TimestampType timestampType;
    private final long baseOffset;
    private final long producerId;
    private final short producerEpoch;
    private final int baseSequence;
    private final GrowableBytes out;

    private int recordCount;
    private int lastOffsetDelta = -1;
    private long baseTimestamp = RecordBatch.NO_TIMESTAMP;
    private long maxTimestamp = RecordBatch.NO_TIMESTAMP;
    private int partitionLeaderEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;
    private ByteBuffer built;

    public RecordBatchBuilder(CompressionType compression, TimestampType timestampType, long baseOffset, long producerId,
                              short producerEpoch, int baseSequence, int initialCapacityBytes) {
        this(compression, timestampType, baseOffset, producerId, producerEpoch, baseSequence,
            new GrowableBytes(Math.max(initialCapacityBytes, RecordBatch.HEADER_SIZE + 64)));
    }

    /**
     * As the other constructor, but the records go into {@code buffer} (a recycled array, e.g. from a producer's
     * buffer pool, at least a header and a record long) until it must grow; {@link #buffer()} is the array in the end.
     */
    public RecordBatchBuilder(CompressionType compression, TimestampType timestampType, long baseOffset, long producerId,
                              short producerEpoch, int baseSequence, byte[] buffer) {
        this(compression, timestampType, baseOffset, producerId, producerEpoch, baseSequence, new GrowableBytes(buffer));
    }

    private RecordBatchBuilder(CompressionType compression, TimestampType timestampType, long baseOffset, long producerId,
                               short producerEpoch, int baseSequence, GrowableBytes out) {
        this.compression = Objects.requireNonNull(compression, "compression");
        this.timestampType = Objects.requireNonNull(timestampType, "timestampType");
        this.baseOffset = baseOffset;
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.baseSequence = baseSequence;
        this.out = out;
        this.out.setSize(RecordBatch.HEADER_SIZE);
    }

    /**
     * The array the uncompressed batch is written into (the one given to the constructor unless it had to grow). With
     * no compression the built batch is a view of it: it may be reused only once the built batch is no longer read.
     */
    public byte[] buffer() {
        return out.array();
    }

    /** Appends a record at the next offset (base offset + number of records so far). Key, value, headers may be null. */
    public void append(long timestamp, byte[] key, byte[] value, Header[] headers) {
        appendWithOffsetDelta(lastOffsetDelta + 1, timestamp, key, value, headers);
    }

    /**
     * Appends a record at an explicit offset, which must be above the previous record's (gaps allowed): the log
     * cleaner keeps the offsets of the records it retains.
     */
    public void appendWithOffset(long offset, long timestamp, byte[] key, byte[] value, Header[] headers) {
        long delta = offset - baseOffset;
        if (delta <= lastOffsetDelta || delta > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("offset " + offset + " must be above " + (baseOffset + lastOffsetDelta)
                + " and within 2^31 of the base offset " + baseOffset);
        }
        appendWithOffsetDelta((int) delta, timestamp, key, value, headers);
    }

    /** Sets the partition leader epoch written into the header (the broker normally stamps it in place instead). */
    public void setPartitionLeaderEpoch(int epoch) {
        this.partitionLeaderEpoch = epoch;
    }

    private void appendWithOffsetDelta(int offsetDelta, long timestamp, byte[] key, byte[] value, Header[] headers) {
        if (built != null) {
            throw new IllegalStateException("batch already built");
        }
        if (recordCount == 0) {
            baseTimestamp = timestamp;
        }
        long timestampDelta = timestamp - baseTimestamp;
        int headerCount = headers == null ? 0 : headers.length;
        byte[][] headerKeys = headerCount == 0 ? NO_HEADER_KEYS : new byte[headerCount][];
        int bodySize = 1 + Varints.sizeOfVarlong(timestampDelta) + Varints.sizeOfVarint(offsetDelta)
            + sizeOfNullable(key) + sizeOfNullable(value) + Varints.sizeOfVarint(headerCount);
        for (int i = 0; i < headerCount; i++) {
            Header h = Objects.requireNonNull(headers[i], "header");
            headerKeys[i] = h.key().getBytes(StandardCharsets.UTF_8);
            bodySize += Varints.sizeOfVarint(headerKeys[i].length) + headerKeys[i].length + sizeOfNullable(h.value());
        }
        out.ensureRemaining(Varints.MAX_VARINT_BYTES + bodySize);
        byte[] dst = out.array();
        int p = out.size();
        p = Varints.writeVarint(bodySize, dst, p);
        dst[p++] = 0; // record attributes: none defined
        p = Varints.writeVarlong(timestampDelta, dst, p);
        p = Varints.writeVarint(offsetDelta, dst, p);
        p = writeNullable(key, dst, p);
        p = writeNullable(value, dst, p);
        p = Varints.writeVarint(headerCount, dst, p);
        for (int i = 0; i < headerCount; i++) {
            p = Varints.writeVarint(headerKeys[i].length, dst, p);
            System.arraycopy(headerKeys[i], 0, dst, p, headerKeys[i].length);
            p += headerKeys[i].length;
            p = writeNullable(headers[i].value(), dst, p);
        }
        out.setSize(p);
        recordCount++;
        lastOffsetDelta = offsetDelta;
        if (recordCount == 1 || timestamp > maxTimestamp) {
            maxTimestamp = timestamp;
        }
    }

    private static int sizeOfNullable(byte[] b) {
        return b == null ? Varints.sizeOfVarint(-1) : Varints.sizeOfVarint(b.length) + b.length;
    }

    private static int writeNullable(byte[] b, byte[] dst, int p) {
        if (b == null) {
            return Varints.writeVarint(-1, dst, p);
        }
        p = Varints.writeVarint(b.length, dst, p);
        System.arraycopy(b, 0, dst, p, b.length);
        return p + b.length;
    }

    /**
     * An upper bound of a record's encoded size whatever its position in the batch (maximal varints for the
     * deltas). Header keys are counted at 3 bytes per char, the most UTF-8 can take.
     */
    public static int estimateRecordSize(byte[] key, byte[] value, Header[] headers) {
        int size = Varints.MAX_VARINT_BYTES + 1 + Varints.MAX_VARLONG_BYTES + Varints.MAX_VARINT_BYTES
            + Varints.MAX_VARINT_BYTES + (key == null ? 0 : key.length)
            + Varints.MAX_VARINT_BYTES + (value == null ? 0 : value.length)
            + Varints.MAX_VARINT_BYTES;
        if (headers != null) {
            for (Header h : headers) {
                size += Varints.MAX_VARINT_BYTES + 3 * h.key().length() + Varints.MAX_VARINT_BYTES
                    + (h.value() == null ? 0 : h.value().length);
            }
        }
        return size;
    }

    /** The batch size if built now, uncompressed (an upper bound for a compressing codec, up to its framing). */
    public int estimatedSizeInBytes() {
        return out.size() + (compression == CompressionType.NONE ? 0 : COMPRESSION_OVERHEAD_BYTES);
    }

    /**
     * Whether a record fits within {@code limitBytes} after those already appended. The first record always fits
     * (a batch is never empty because one record is large; the broker's size limit decides about it).
     */
    public boolean hasRoomFor(int limitBytes, byte[] key, byte[] value, Header[] headers) {
        if (built != null) {
            return false;
        }
        return recordCount == 0 || (long) estimatedSizeInBytes() + estimateRecordSize(key, value, headers) <= limitBytes;
    }

    public int recordCount() {
        return recordCount;
    }

    public boolean isEmpty() {
        return recordCount == 0;
    }

    public CompressionType compressionType() {
        return compression;
    }

    /** Bytes of records appended so far, uncompressed, without the batch header. */
    public int uncompressedRecordsBytes() {
        return out.size() - RecordBatch.HEADER_SIZE;
    }

    /**
     * Finishes the batch: compresses, writes the header and the CRC. Returns a buffer holding exactly one batch at
     * position 0 with limit = its size. Calling it again returns a duplicate of the same buffer.
     *
     * @throws IllegalStateException if no record was appended
     */
    public ByteBuffer build() {
        if (built != null) {
            return built.duplicate();
        }
        if (recordCount == 0) {
            throw new IllegalStateException("a batch needs at least one record");
        }
        byte[] array;
        int size;
        if (compression == CompressionType.NONE) {
            array = out.array();
            size = out.size();
        } else {
            int plain = out.size() - RecordBatch.HEADER_SIZE;
            GrowableBytes compressed = new GrowableBytes(RecordBatch.HEADER_SIZE + plain / 2 + COMPRESSION_OVERHEAD_BYTES);
            compressed.setSize(RecordBatch.HEADER_SIZE);
            Compression.compress(compression, out.array(), RecordBatch.HEADER_SIZE, plain, compressed);
            array = compressed.array();
            size = compressed.size();
        }
        ByteBuffer b = ByteBuffer.wrap(array, 0, size).slice();
        b.putLong(RecordBatch.BASE_OFFSET_OFFSET, baseOffset);
        b.putInt(RecordBatch.LENGTH_OFFSET, size - RecordBatch.LOG_OVERHEAD);
        b.putInt(RecordBatch.PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch);
        b.put(RecordBatch.MAGIC_OFFSET, RecordBatch.CURRENT_MAGIC);
        int attributes = compression.id() | (timestampType == TimestampType.LOG_APPEND_TIME ? RecordBatch.TIMESTAMP_TYPE_MASK : 0);
        b.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) attributes);
        b.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, lastOffsetDelta);
        b.putLong(RecordBatch.BASE_TIMESTAMP_OFFSET, baseTimestamp);
        b.putLong(RecordBatch.MAX_TIMESTAMP_OFFSET, maxTimestamp);
        b.putLong(RecordBatch.PRODUCER_ID_OFFSET, producerId);
        b.putShort(RecordBatch.PRODUCER_EPOCH_OFFSET, producerEpoch);
        b.putInt(RecordBatch.BASE_SEQUENCE_OFFSET, baseSequence);
        b.putInt(RecordBatch.RECORD_COUNT_OFFSET, recordCount);
        CRC32C crc = new CRC32C();
        crc.update(array, RecordBatch.ATTRIBUTES_OFFSET, size - RecordBatch.ATTRIBUTES_OFFSET);
        b.putInt(RecordBatch.CRC_OFFSET, (int) crc.getValue());
        built = b;
        return b.duplicate();
    }
}
