package io.raftline.broker.metrics;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The thread factory of a Netty event-loop group, whose busy time is its threads' CPU time. An event loop never
 * blocks except waiting in its selector, so time on the CPU is the time it handled I/O and tasks; waiting in the
 * selector, or for a CPU on a crowded machine, counts as idle. A thread's last reading is kept after it ends, so the
 * total never goes back.
 */
public final class CpuTimeThreads implements ThreadFactory, BusyTime {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final String name;
    private final int threads;
    private final AtomicInteger made = new AtomicInteger();
    /** Thread id -> its CPU nanoseconds at the last reading. */
    private final Map<Long, Long> cpuNs = new ConcurrentHashMap<>();

    /** @param threads the size of the group (its threads start as it first uses them) */
    public CpuTimeThreads(String name, int threads) {
        this.name = name;
        this.threads = threads;
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, name + "-" + made.incrementAndGet());
        t.setDaemon(true);
        cpuNs.put(t.getId(), 0L);
        return t;
    }

    /** The CPU time of the group's threads; {@code nowNs} is not needed (the CPU counters are read as they stand). */
    @Override
    public long busyNanos(long nowNs) {
        long total = 0;
        for (Map.Entry<Long, Long> e : cpuNs.entrySet()) {
            long cpu = THREADS.getThreadCpuTime(e.getKey());
            if (cpu > e.getValue()) {
                e.setValue(cpu);
            }
            total += e.getValue();
        }
        return total;
    }

    @Override
    public int threads() {
        return threads;
    }
}
