package io.raftline.broker.rpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.raftline.broker.log.FetchDataInfo;
import io.raftline.broker.log.FileSlice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stored batch bytes as the protobuf {@code bytes} fields of fetch responses, read from the segment files straight
 * into direct buffers that are reused: the file is read once (no zeroed heap array per fetch, no JDK temporary
 * direct buffer per thread) and protobuf copies the bytes once more, into gRPC's frames.
 *
 * <p>Contract: a {@link Lease} hands out {@link ByteString}s that alias its buffer; {@link Lease#close()} must be
 * called only after the message holding them has been serialized ({@code onNext} of a gRPC server stream
 * serializes before it returns), and nothing may read them afterwards. At most {@link #MAX_POOLED} buffers of at
 * most {@link #MAX_POOLED_BYTES} each are kept; larger responses use a buffer of their own.
 */
public final class StoredBytes {

    static final int MAX_POOLED = 4;
    static final int MAX_POOLED_BYTES = 16 << 20;
    private static final int MIN_BUFFER_BYTES = 1 << 20;

    private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger freeCount = new AtomicInteger();

    /** The buffer of one response; not thread-safe (one response is built on one thread). */
    public final class Lease implements AutoCloseable {
        private final ByteBuffer buffer;
        private boolean closed;

        private Lease(ByteBuffer buffer) {
            this.buffer = buffer;
        }

        /**
         * Reads {@code data} into the next part of the buffer and returns it as a ByteString sharing that memory.
         *
         * @throws UncheckedIOException if the file cannot be read
         */
        public ByteString wrap(FetchDataInfo data) {
            if (closed) {
                throw new IllegalStateException("lease already closed");
            }
            int start = buffer.position();
            try {
                for (FileSlice s : data.slices()) {
                    s.readInto(buffer);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            ByteBuffer part = buffer.duplicate();
            part.position(start).limit(buffer.position());
            return UnsafeByteOperations.unsafeWrap(part.slice());
        }

        /** Gives the buffer back for reuse. */
        @Override
        public void close() {
            if (!closed) {
                closed = true;
                release(buffer);
            }
        }
    }

    /** A lease with room for {@code bytes} bytes (the sum of the data it will wrap). */
    public Lease lease(int bytes) {
        return new Lease(acquire(bytes));
    }

    private ByteBuffer acquire(int bytes) {
        if (bytes > MAX_POOLED_BYTES) {
            return ByteBuffer.allocate(bytes);
        }
        ByteBuffer b;
        while ((b = free.poll()) != null) {
            freeCount.decrementAndGet();
            if (b.capacity() >= bytes) {
                b.clear();
                return b;
            }
            // too small: dropped (freed with the next GC); a bigger one replaces it on release
        }
        return ByteBuffer.allocateDirect(Math.min(MAX_POOLED_BYTES, Math.max(MIN_BUFFER_BYTES, Integer.highestOneBit(bytes - 1) << 1)));
    }

    private void release(ByteBuffer b) {
        if (!b.isDirect()) {
            return;
        }
        if (freeCount.incrementAndGet() <= MAX_POOLED) {
            free.add(b);
        } else {
            freeCount.decrementAndGet();
        }
    }

    /** Buffers kept for reuse (for tests). */
    public int pooled() {
        return freeCount.get();
    }
}
