package io.raftline.record;

import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/** An output stream into one growing heap array whose bytes can be handed out without a copy. Not thread-safe. */
final class GrowableBytes extends OutputStream {

    private byte[] buf;
    private int size;

    GrowableBytes(int initialCapacity) {
        this.buf = new byte[Math.max(16, initialCapacity)];
    }

    /** Writes into {@code initial} (a recycled array; its old contents are overwritten) until it must grow. */
    GrowableBytes(byte[] initial) {
        this.buf = initial;
    }

    byte[] array() {
        return buf;
    }

    int size() {
        return size;
    }

    void setSize(int newSize) {
        ensureCapacity(newSize);
        size = newSize;
    }

    /** Makes room for {@code extra} more bytes after {@link #size()}; the array may change. */
    void ensureRemaining(int extra) {
        ensureCapacity(size + extra);
    }

    private void ensureCapacity(int capacity) {
        if (capacity < 0) {
            throw new IllegalStateException("batch larger than 2 GiB");
        }
        if (capacity > buf.length) {
            int grown = Math.max(capacity, buf.length + (buf.length >> 1));
            buf = Arrays.copyOf(buf, grown < 0 ? Integer.MAX_VALUE - 8 : grown);
        }
    }

    @Override
    public void write(int b) {
        ensureRemaining(1);
        buf[size++] = (byte) b;
    }

    @Override
    public void write(byte[] src, int off, int len) {
        ensureRemaining(len);
        System.arraycopy(src, off, buf, size, len);
        size += len;
    }

    /** The bytes written so far, at position 0 with limit = size (shares the array). */
    ByteBuffer toByteBuffer() {
        return ByteBuffer.wrap(buf, 0, size).slice();
    }
}
