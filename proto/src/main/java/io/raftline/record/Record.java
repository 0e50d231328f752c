package io.raftline.record;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One decoded record. Key and value are read-only slices of the batch's (or the decompressed section's) memory,
 * not copies; they are null when the record has none.
 */
public final class Record {

    private static final Header[] NO_HEADERS = new Header[0];

    private final long offset;
    private final long timestamp;
    private final ByteBuffer key;
    private final ByteBuffer value;
    private final Header[] headers;
    private final int sizeInBytes;

    Record(long offset, long timestamp, ByteBuffer key, ByteBuffer value, Header[] headers, int sizeInBytes) {
        this.offset = offset;
        this.timestamp = timestamp;
        this.key = key;
        this.value = value;
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
        return key == null ? null : key.asReadOnlyBuffer();
    }

    /** The value (a fresh read-only view each call), or null: a null value on a compacted topic is a tombstone. */
    public ByteBuffer value() {
        return value == null ? null : value.asReadOnlyBuffer();
    }

    public boolean hasKey() {
        return key != null;
    }

    public boolean hasValue() {
        return value != null;
    }

    /** A copy of the key, or null. */
    public byte[] keyBytes() {
        return copy(key);
    }

    /** A copy of the value, or null. */
    public byte[] valueBytes() {
        return copy(value);
    }

    public Header[] headers() {
        return headers.length == 0 ? headers : headers.clone();
    }

    /** The encoded size of this record inside the records section, length prefix included. */
    public int sizeInBytes() {
        return sizeInBytes;
    }

    private static byte[] copy(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] out = new byte[b.remaining()];
        b.get(b.position(), out, 0, out.length);
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
        ByteBuffer key = readNullable(reader);
        ByteBuffer value = readNullable(reader);
        int headerCount = reader.readVarint();
        if (headerCount < 0 || headerCount > reader.remaining()) {
            throw ByteReader.corrupt("impossible header count " + headerCount + " at position " + reader.position());
        }
        Header[] headers = headerCount == 0 ? NO_HEADERS : new Header[headerCount];
        for (int i = 0; i < headerCount; i++) {
            int keyLength = reader.readVarint();
            if (keyLength < 0) {
                throw ByteReader.corrupt("header key length " + keyLength + " at position " + reader.position());
            }
            String headerKey = new String(reader.readBytes(keyLength), StandardCharsets.UTF_8);
            int valueLength = reader.readVarint();
            byte[] headerValue = valueLength < 0 ? null : reader.readBytes(valueLength);
            headers[i] = new Header(headerKey, headerValue);
        }
        int consumed = reader.position() - bodyStart;
        if (consumed != length) {
            throw ByteReader.corrupt("record at position " + start + " says " + length + " bytes but its fields take " + consumed);
        }
        long timestamp = logAppendTime != RecordBatch.NO_TIMESTAMP ? logAppendTime : baseTimestamp + timestampDelta;
        return new Record(baseOffset + offsetDelta, timestamp, key, value, headers, reader.position() - start);
    }

    private static ByteBuffer readNullable(ByteReader reader) {
        int length = reader.readVarint();
        if (length < -1) {
            throw ByteReader.corrupt("length " + length + " at position " + reader.position());
        }
        return length == -1 ? null : reader.slice(length);
    }

    @Override
    public String toString() {
        return "Record(offset=" + offset + ", timestamp=" + timestamp + ", key=" + (key == null ? "null" : key.remaining() + "B")
            + ", value=" + (value == null ? "null" : value.remaining() + "B") + ", headers=" + headers.length + ")";
    }
}
