package io.raftline.broker.metrics;

/**
 * A pool of threads whose busy time is measured: a running total that only grows. What "busy" means is the
 * implementation's ({@link TimedExecutor}: inside a task; {@link CpuTimeThreads}: on the CPU).
 */
public interface BusyTime {

    /** Busy nanoseconds of all the pool's threads together, since it was made, as of {@code nowNs}. */
    long busyNanos(long nowNs);

    /** Threads the pool has (its size, whether or not each has started). */
    int threads();
}
