package io.raftline.broker.metrics;

import io.raftline.common.Time;

/**
 * The share of an interval a pool's threads were idle, as Kafka's request-handler and network-processor idle
 * ratios: 1 − busy time / (wall time × threads), from two readings of a {@link BusyTime}. {@link #sample()} is
 * called once per interval (the broker's metrics refresh); the gauge shows the last interval's figure.
 */
public final class IdleRatio {

    private final BusyTime pool;
    private final Time time;
    /** Only the refresh thread writes these. */
    private long lastBusyNs;
    private long lastNowNs;
    private volatile double ratio = Double.NaN;

    public IdleRatio(BusyTime pool, Time time) {
        this.pool = pool;
        this.time = time;
        this.lastNowNs = time.nanoseconds();
        this.lastBusyNs = pool.busyNanos(lastNowNs);
    }

    /** Reads the pool and sets the figure for the interval since the previous reading. */
    public void sample() {
        long now = time.nanoseconds();
        long busy = pool.busyNanos(now);
        ratio = idleRatio(busy - lastBusyNs, now - lastNowNs, pool.threads());
        lastBusyNs = busy;
        lastNowNs = now;
    }

    /** The last interval's idle ratio, NaN before the first. */
    public double value() {
        return ratio;
    }

    /**
     * 1 − busy / (wall × threads), kept within [0, 1] (a busy reading a little ahead of the wall clock's, or a thread
     * briefly over its share, never gives a figure outside it); NaN for an empty interval or pool.
     */
    static double idleRatio(long busyNs, long wallNs, int threads) {
        if (wallNs <= 0 || threads <= 0) {
            return Double.NaN;
        }
        double busyShare = Math.max(0, busyNs) / ((double) wallNs * threads);
        return Math.max(0, Math.min(1, 1 - busyShare));
    }
}
