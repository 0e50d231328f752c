package io.raftline.broker.group;

import io.raftline.common.ManualTime;
import java.util.PriorityQueue;

/** A scheduler for tests: tasks run only when the test steps the clock, in due order, at their due time. */
final class ManualScheduler implements GroupScheduler {

    private record Entry(long dueMs, long seq, Runnable task, boolean[] cancelled) {
    }

    private final ManualTime time;
    private final PriorityQueue<Entry> queue = new PriorityQueue<>((a, b) ->
        a.dueMs != b.dueMs ? Long.compare(a.dueMs, b.dueMs) : Long.compare(a.seq, b.seq));
    private long seq;

    ManualScheduler(ManualTime time) {
        this.time = time;
    }

    @Override
    public synchronized Task schedule(long delayMs, Runnable task) {
        boolean[] cancelled = new boolean[1];
        queue.add(new Entry(time.hiResMilliseconds() + Math.max(0, delayMs), seq++, task, cancelled));
        return () -> {
            synchronized (ManualScheduler.this) {
                cancelled[0] = true;
            }
        };
    }

    /** Moves the clock forward by {@code ms}, running every task that falls due on the way at its due time. */
    void advance(long ms) {
        long target = time.hiResMilliseconds() + ms;
        while (true) {
            Entry next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.dueMs > target) {
                    break;
                }
                queue.poll();
                if (next.cancelled[0]) {
                    continue;
                }
            }
            long now = time.hiResMilliseconds();
            if (next.dueMs > now) {
                time.advance(next.dueMs - now);
            }
            next.task.run();
        }
        long now = time.hiResMilliseconds();
        if (target > now) {
            time.advance(target - now);
        }
    }

    /** Tasks waiting (cancelled ones included until their time). */
    synchronized int pending() {
        return (int) queue.stream().filter(e -> !e.cancelled[0]).count();
    }
}
