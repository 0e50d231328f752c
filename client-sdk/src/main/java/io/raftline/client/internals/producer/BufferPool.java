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
 * served, up to {@code max.block.ms}, then fails with {@link BufferExhaustedException}. The pool counts bytes rather
 * than recycling buffers: the batch builder owns its array, and the JVM's young generation reclaims it cheaply.
 */
public final class BufferPool {

    private final long totalBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Deque<Condition> waiters = new ArrayDeque<>();
    private long availableBytes;
    private boolean closed;

    /** A pool of {@code totalBytes}. */
    public BufferPool(long totalBytes) {
        this.totalBytes = totalBytes;
        this.availableBytes = totalBytes;
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
