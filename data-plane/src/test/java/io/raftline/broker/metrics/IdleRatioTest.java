package io.raftline.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.common.ManualTime;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class IdleRatioTest {

    private static final long MS = 1_000_000L;

    @Test
    void idleIsTheShareOfThreadTimeNotBusy() {
        // {busy ns, wall ns, threads, expected idle ratio (NaN: none)}
        double[][] table = {
            {0, 1000 * MS, 1, 1.0},
            {1000 * MS, 1000 * MS, 1, 0.0},
            {250 * MS, 1000 * MS, 1, 0.75},
            {1000 * MS, 1000 * MS, 4, 0.75},     // one thread of four busy the whole interval
            {3000 * MS, 1000 * MS, 2, 0.0},      // counted twice at an edge: clamped, never negative
            {-5 * MS, 1000 * MS, 2, 1.0},        // a reading behind the previous one: no busy time, not above 1
            {10 * MS, 0, 2, Double.NaN},         // an empty interval
            {10 * MS, 1000 * MS, 0, Double.NaN}, // an empty pool
        };
        for (double[] row : table) {
            assertThat(IdleRatio.idleRatio((long) row[0], (long) row[1], (int) row[2]))
                .as("busy=%s wall=%s threads=%s", row[0], row[1], row[2]).isEqualTo(Double.valueOf(row[3]));
        }
    }

    @Test
    void aTimedExecutorCountsFinishedTasksAndTheRunningShareOfALongOne() throws Exception {
        ManualTime time = new ManualTime();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            TimedExecutor executor = new TimedExecutor(pool, 2, time);
            IdleRatio ratio = new IdleRatio(executor, time);
            assertThat(ratio.value()).as("before the first interval").isNaN();
            // A task of 300 ms in a 1 s interval on a pool of 2: 1 - 0.3 / 2.
            CountDownLatch done = new CountDownLatch(1);
            executor.execute(() -> {
                time.advance(300);
                done.countDown();
            });
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            awaitBusy(executor, time, 300 * MS);
            time.advance(700);
            ratio.sample();
            assertThat(ratio.value()).isCloseTo(0.85, org.assertj.core.api.Assertions.within(1e-9));
            // A task still running: the next interval counts only its own 500 ms of it.
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            executor.execute(() -> {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            time.advance(500);
            ratio.sample();
            assertThat(ratio.value()).as("one of two threads busy the whole interval").isEqualTo(0.5);
            release.countDown();
        } finally {
            pool.shutdownNow();
        }
    }

    /** The task's time is added as it returns, just after it counted down: wait for it with a deadline. */
    /**
     * Waits until the executor's tasks have finished with {@code busyNs} in all: read as of a second later, so that a
     * task still inside the executor (past its body, not yet out of the running set) would count that second too.
     */
    private static void awaitBusy(TimedExecutor executor, ManualTime time, long busyNs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (executor.busyNanos(time.nanoseconds() + 1000 * MS) != busyNs && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(executor.busyNanos(time.nanoseconds() + 1000 * MS)).isEqualTo(busyNs);
    }
}
