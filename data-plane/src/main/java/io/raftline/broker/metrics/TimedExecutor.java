package io.raftline.broker.metrics;

import io.raftline.common.Time;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An executor that runs its tasks on {@code delegate} and measures the time spent in them on the injected clock:
 * busy time is the finished tasks' time plus, for each task still running, the time since it started, so an
 * interval counts only its own share of a long task. Kafka's request-handler idle ratio measures the same (time not
 * waiting for a request).
 */
public final class TimedExecutor implements Executor, BusyTime {

    private final Executor delegate;
    private final Time time;
    private final int threads;
    private final AtomicLong finishedNs = new AtomicLong();
    /** Running task's thread -> when it started. */
    private final Map<Thread, Long> runningSince = new ConcurrentHashMap<>();

    /** @param threads the size of {@code delegate}'s pool */
    public TimedExecutor(Executor delegate, int threads, Time time) {
        this.delegate = delegate;
        this.threads = threads;
        this.time = time;
    }

    @Override
    public void execute(Runnable task) {
        delegate.execute(() -> {
            Thread self = Thread.currentThread();
            long start = time.nanoseconds();
            runningSince.put(self, start);
            try {
                task.run();
            } finally {
                // the total moves before the running entry goes: a reading in between counts the task twice (the
                // idle ratio is clamped at 0) rather than not at all
                finishedNs.addAndGet(time.nanoseconds() - start);
                runningSince.remove(self);
            }
        });
    }

    @Override
    public long busyNanos(long nowNs) {
        long running = 0;
        for (long start : runningSince.values()) {
            running += Math.max(0, nowNs - start);
        }
        return finishedNs.get() + running;
    }

    @Override
    public int threads() {
        return threads;
    }
}
