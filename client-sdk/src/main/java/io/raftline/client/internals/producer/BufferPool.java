package io.raftline.client.internals.producer;

import io.raftline.client.errors.BufferExhaustedException;
import io.raftline.client.errors.InterruptException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The producer's memory budget ({@code buffer.memory}): every open batch reserves its capacity here before it is
 * created and gives it back when it completes. A caller that finds too little free memory waits, first come first
 * served, up to {@code max.block.ms}, then fails with {@link BufferExhaustedException}.
 *
 * <p>Arrays of exactly {@code batch.size} bytes (the poolable size) that come back are kept for reuse, so a producer
 * in its steady state does not allocate a new batch array for every batch (about one byte per byte sent). Free
 * arrays count as available memory; invariant: {@code free arrays x poolable size <= available bytes}, so the
 * arrays in use plus those kept never exceed {@code buffer.memory} (free ones are dropped to the GC to keep it).
 */
public final class BufferPool {

    private final long totalBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Deque<Condition> waiters = new ArrayDeque<>();
    private final int poolableSize;
    private final Deque<byte[]> free = new ArrayDeque<>();
    private long availableBytes;
    private boolean closed;

    /** A pool of {@code totalBytes} that recycles no arrays. */
    public BufferPool(long totalBytes) {
        this(totalBytes, 0);
    }

    /** A pool of {@code totalBytes} that keeps returned arrays of {@code poolableSize} bytes for reuse. */
    public BufferPool(long totalBytes, int poolableSize) {
        this.totalBytes = totalBytes;
        this.availableBytes = totalBytes;
        this.poolableSize = poolableSize;
    }

    /**
     * Reserves {@code size} bytes as {@link #allocate} does, and returns a recycled array of exactly {@code size}
     * bytes when {@code size} is the poolable size and one is free; otherwise null (the caller makes its own).
     */
    public byte[] allocateArray(int size, long maxBlockMs) {
        if (size == poolableSize && poolableSize > 0) {
            lock.lock();
            try {
                if (!closed && waiters.isEmpty() && !free.isEmpty() && availableBytes >= size) {
                    availableBytes -= size;
                    return free.pollFirst();
                }
            } finally {
                lock.unlock();
            }
        }
        allocate(size, maxBlockMs);
        if (size != poolableSize || poolableSize == 0) {
            return null;
        }
        lock.lock();
        try {
            return free.pollFirst();
        } finally {
            lock.unlock();
        }
    }

    /** Gives back {@code size} bytes, keeping {@code array} for reuse if it has the poolable size (null: none). */
    public void deallocate(int size, byte[] array) {
        lock.lock();
        try {
            if (array != null && poolableSize > 0 && array.length == poolableSize && size == poolableSize) {
                free.addFirst(array);
            }
            deallocate(size);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A batch shrank its reservation from {@code from} to {@code to} bytes and no longer uses {@code array} (its
     * builder's, or null): the difference goes back, and the array is kept for reuse when it has the poolable size and
     * the kept arrays still fit in the available bytes.
     */
    public void shrink(int from, int to, byte[] array) {
        if (to > from || to < 0) {
            throw new IllegalArgumentException("cannot shrink a reservation of " + from + " bytes to " + to);
        }
        lock.lock();
        try {
            deallocate(from - to);
            if (array != null && poolableSize > 0 && array.length == poolableSize
                && (long) (free.size() + 1) * poolableSize <= availableBytes) {
                free.addFirst(array);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Arrays kept for reuse. */
    public int freeArrays() {
        lock.lock();
        try {
            return free.size();
        } finally {
            lock.unlock();
        }
    }

    /** Drops kept arrays until they fit in the available bytes (called with the lock held, after a reservation). */
    private void trimFree() {
        while (!free.isEmpty() && (long) free.size() * poolableSize > availableBytes) {
            free.pollLast();
        }
    }

    /**
     * Reserves {@code size} bytes, waiting up to {@code maxBlockMs} for other batches to complete.
     *
     * @throws BufferExhaustedException when the memory did not become free in time
     * @throws IllegalArgumentException when {@code size} exceeds the whole pool
     */
    public void allocate(int size, long maxBlockMs) {
        if (size > totalBytes) {
            throw new IllegalArgumentException("Attempt to allocate " + size + " bytes, but there is a hard limit of "
                + totalBytes + " on memory allocations (buffer.memory)");
        }
        lock.lock();
        try {
            checkOpen();
            if (waiters.isEmpty() && availableBytes >= size) {
                availableBytes -= size;
                trimFree();
                return;
            }
            Condition turn = lock.newCondition();
            waiters.addLast(turn);
            long remainingNs = TimeUnit.MILLISECONDS.toNanos(maxBlockMs);
            try {
                while (waiters.peekFirst() != turn || availableBytes < size) {
                    if (remainingNs <= 0) {
                        throw new BufferExhaustedException("Failed to allocate " + size + " bytes within the configured max blocking time "
                            + maxBlockMs + " ms. Total memory: " + totalBytes + " bytes. Available memory: " + availableBytes
                            + " bytes. (buffer.memory is full)");
                    }
                    // The condition's own clock bounds the wait: the blocking is real, whatever Time the producer uses.
                    remainingNs = turn.awaitNanos(remainingNs);
                    checkOpen();
                }
                availableBytes -= size;
                trimFree();
            } finally {
                waiters.remove(turn);
                Condition next = waiters.peekFirst();
                if (next != null) {
                    next.signal();
                }
            }
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        } finally {
            lock.unlock();
        }
    }

    /** Gives back {@code size} bytes and wakes the first waiter. */
    public void deallocate(int size) {
        lock.lock();
        try {
            availableBytes += size;
            if (availableBytes > totalBytes) {
                throw new IllegalStateException("Released more memory than was allocated: " + availableBytes + " > " + totalBytes);
            }
            Condition first = waiters.peekFirst();
            if (first != null) {
                first.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Free bytes. */
    public long availableMemory() {
        lock.lock();
        try {
            return availableBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Threads waiting for memory. */
    public int queued() {
        lock.lock();
        try {
            return waiters.size();
        } finally {
            lock.unlock();
        }
    }

    /** The pool's size. */
    public long totalMemory() {
        return totalBytes;
    }

    /** Wakes every waiter with an error: the producer is closing. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            for (Condition c : waiters) {
                c.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("Producer closed while send in progress");
        }
    }
}
