package io.raftline.record;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One decoded record. Key and value stay in the batch's (or the decompressed section's) memory, located by position
 * and length: {@link #key()} and {@link #value()} are read-only views made on request, {@link #keyBytes()} and
 * {@link #valueBytes()} copy straight from that memory (no view per record on the consumer's path); they are null
 * when the record has none.
 */
public final class Record {

    private static final Header[] NO_HEADERS = new Header[0];

    private final long offset;
    private final long timestamp;
    /** The memory key and value live in; they are located by position and length (-1: null), not sliced. */
    private final ByteBuffer buf;
    private final int keyPosition;
    private final int keyLength;
    private final int valuePosition;
    private final int valueLength;
    private final Header[] headers;
    private final int sizeInBytes;

    Record(long offset, long timestamp, ByteBuffer buf, int keyPosition, int keyLength, int valuePosition, int valueLength,
           Header[] headers, int sizeInBytes) {
        this.offset = offset;
        this.timestamp = timestamp;
        this.buf = buf;
        this.keyPosition = keyPosition;
        this.keyLength = keyLength;
        this.valuePosition = valuePosition;
        this.valueLength = valueLength;
        this.headers = headers;
        this.sizeInBytes = sizeInBytes;
    }

    public long offset() {
        return offset;
    }

    /** The record's timestamp; under LogAppendTime the batch's max timestamp. */
    public long timestamp() {
        return timestamp;
    }

    /** The key (a fresh read-only view each call), or null. */
    public ByteBuffer key() {
        return view(keyPosition, keyLength);
    }

    /** The value (a fresh read-only view each call), or null: a null value on a compacted topic is a tombstone. */
    public ByteBuffer value() {
        return view(valuePosition, valueLength);
    }

    public boolean hasKey() {
        return keyLength >= 0;
    }

    public boolean hasValue() {
        return valueLength >= 0;
    }

    /** The key's size in bytes, -1 when there is none. */
    public int keySize() {
        return keyLength;
    }

    /** The value's size in bytes, -1 when there is none. */
    public int valueSize() {
        return valueLength;
    }

    /** A copy of the key, or null. */
    public byte[] keyBytes() {
        return copy(keyPosition, keyLength);
    }

    /** A copy of the value, or null. */
    public byte[] valueBytes() {
        return copy(valuePosition, valueLength);
    }

    public Header[] headers() {
        return headers.length == 0 ? headers : headers.clone();
    }

    /** The encoded size of this record inside the records section, length prefix included. */
    public int sizeInBytes() {
        return sizeInBytes;
    }

    private ByteBuffer view(int position, int length) {
        if (length < 0) {
            return null;
        }
        return buf.asReadOnlyBuffer().limit(position + length).position(position).slice();
    }

    private byte[] copy(int position, int length) {
        if (length < 0) {
            return null;
        }
        byte[] out = new byte[length];
        buf.get(position, out, 0, length);
        return out;
    }

    /**
     * Reads one record at the reader's position.
     *
     * @param logAppendTime the batch's max timestamp when the batch uses LogAppendTime, else NO_TIMESTAMP
     */
    static Record read(ByteReader reader, long baseOffset, long baseTimestamp, long logAppendTime) {
        int start = reader.position();
        int length = reader.readVarint();
        int bodyStart = reader.position();
        if (length < 0 || length > reader.remaining()) {
            throw ByteReader.corrupt("record length " + length + " at position " + start + " exceeds the "
                + reader.remaining() + " bytes left");
        }
        reader.readByte(); // record attributes: unused, must be written as 0
        long timestampDelta = reader.readVarlong();
        int offsetDelta = reader.readVarint();
        int keyLength = readNullableLength(reader);
        int keyPosition = reader.position();
        reader.skip(Math.max(0, keyLength));
        int valueLength = readNullableLength(reader);
        int valuePosition = reader.position();
        reader.skip(Math.max(0, valueLength));
        int headerCount = reader.readVarint();
        if (headerCount < 0 || headerCount > reader.remaining()) {
            throw ByteReader.corrupt("impossible header count " + headerCount + " at position " + reader.position());
        }
        Header[] headers = headerCount == 0 ? NO_HEADERS : new Header[headerCount];
        for (int i = 0; i < headerCount; i++) {
            int headerKeyLength = reader.readVarint();
            if (headerKeyLength < 0) {
                throw ByteReader.corrupt("header key length " + headerKeyLength + " at position " + reader.position());
            }
            String headerKey = new String(reader.readBytes(headerKeyLength), StandardCharsets.UTF_8);
            int headerValueLength = reader.readVarint();
            byte[] headerValue = headerValueLength < 0 ? null : reader.readBytes(headerValueLength);
            headers[i] = new Header(headerKey, headerValue);
        }
        int consumed = reader.position() - bodyStart;
        if (consumed != length) {
            throw ByteReader.corrupt("record at position " + start + " says " + length + " bytes but its fields take " + consumed);
        }
        long timestamp = logAppendTime != RecordBatch.NO_TIMESTAMP ? logAppendTime : baseTimestamp + timestampDelta;
        return new Record(baseOffset + offsetDelta, timestamp, reader.buffer(), keyPosition, keyLength, valuePosition, valueLength,
            headers, reader.position() - start);
    }

    /** A key's or value's length, -1 for null; the caller skips the bytes. */
    private static int readNullableLength(ByteReader reader) {
        int length = reader.readVarint();
        if (length < -1) {
            throw ByteReader.corrupt("length " + length + " at position " + reader.position());
        }
        return length;
    }

    @Override
    public String toString() {
        return "Record(offset=" + offset + ", timestamp=" + timestamp + ", key=" + (keyLength < 0 ? "null" : keyLength + "B")
            + ", value=" + (valueLength < 0 ? "null" : valueLength + "B") + ", headers=" + headers.length + ")";
    }
}
