package io.raftline.record;

/**
 * Zig-zag variable-length integers as used inside the records section: the zig-zag mapping
 * ({@code (n << 1) ^ (n >> 31)}) makes small negative numbers small, then the value is written 7 bits at a
 * time, least significant group first, with the high bit set on every byte but the last. An int takes at most
 * 5 bytes, a long at most 10.
 */
final class Varints {

    static final int MAX_VARINT_BYTES = 5;
    static final int MAX_VARLONG_BYTES = 10;

    private Varints() {
    }

    static int sizeOfVarint(int value) {
        int v = (value << 1) ^ (value >> 31);
        int bytes = 1;
        while ((v & 0xffffff80) != 0) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    static int sizeOfVarlong(long value) {
        long v = (value << 1) ^ (value >> 63);
        int bytes = 1;
        while ((v & 0xffffffffffffff80L) != 0L) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    /** Writes {@code value} at {@code pos} and returns the position after it. The caller guarantees room. */
    static int writeVarint(int value, byte[] dst, int pos) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & 0xffffff80) != 0) {
            dst[pos++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        dst[pos++] = (byte) v;
        return pos;
    }

    /** Writes {@code value} at {@code pos} and returns the position after it. The caller guarantees room. */
    static int writeVarlong(long value, byte[] dst, int pos) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xffffffffffffff80L) != 0L) {
            dst[pos++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        dst[pos++] = (byte) v;
        return pos;
    }
}
