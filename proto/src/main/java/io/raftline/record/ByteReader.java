package io.raftline.record;

import io.raftline.protocol.ErrorCode;
import java.nio.ByteBuffer;

/**
 * A bounds-checked cursor over {@code [pos, end)} of a buffer, reading with absolute gets so the buffer's own
 * position never moves (views may be shared). Every malformed or out-of-range read is a CORRUPT_MESSAGE
 * {@link RecordFormatException}, never an index exception.
 */
final class ByteReader {

    private final ByteBuffer buf;
    private final int end;
    private int pos;

    ByteReader(ByteBuffer buf, int pos, int end) {
        this.buf = buf;
        this.pos = pos;
        this.end = end;
    }

    int position() {
        return pos;
    }

    /** The buffer read (positions of this reader are absolute in it). */
    ByteBuffer buffer() {
        return buf;
    }

    int remaining() {
        return end - pos;
    }

    byte readByte() {
        require(1);
        return buf.get(pos++);
    }

    int readVarint() {
        if (pos < end) {
            // one-byte varints (lengths and deltas under 64) are most of a record's fields
            byte first = buf.get(pos);
            if (first >= 0) {
                pos++;
                return (first >>> 1) ^ -(first & 1);
            }
        }
        int raw = 0;
        int shift = 0;
        for (int i = 0; i < Varints.MAX_VARINT_BYTES; i++) {
            int b = readByte();
            raw |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
            shift += 7;
        }
        throw corrupt("varint longer than 5 bytes at position " + (pos - Varints.MAX_VARINT_BYTES));
    }

    long readVarlong() {
        long raw = 0;
        int shift = 0;
        for (int i = 0; i < Varints.MAX_VARLONG_BYTES; i++) {
            long b = readByte();
            raw |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
            shift += 7;
        }
        throw corrupt("varlong longer than 10 bytes at position " + (pos - Varints.MAX_VARLONG_BYTES));
    }

    /** A slice of the next {@code length} bytes (no copy); the cursor moves past them. */
    ByteBuffer slice(int length) {
        require(length);
        ByteBuffer s = buf.duplicate();
        s.limit(pos + length).position(pos);
        pos += length;
        return s.slice();
    }

    byte[] readBytes(int length) {
        require(length);
        byte[] out = new byte[length];
        buf.get(pos, out, 0, length);
        pos += length;
        return out;
    }

    void skip(int length) {
        require(length);
        pos += length;
    }

    private void require(int length) {
        if (length < 0 || length > end - pos) {
            throw corrupt("record data ends early: need " + length + " bytes at position " + pos + ", have " + (end - pos));
        }
    }

    static RecordFormatException corrupt(String message) {
        return new RecordFormatException(ErrorCode.CORRUPT_MESSAGE, message);
    }
}
