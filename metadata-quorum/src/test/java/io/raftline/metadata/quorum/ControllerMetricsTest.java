package io.raftline.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.common.ManualTime;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ControllerMetricsTest {

    @Test
    void heartbeatAgeIsKnownOnlyOnTheActiveControllerAfterAHeartbeat() {
        // {active (1/0), last arrival ms, now ms, expected seconds (NaN: no value)}
        double[][] table = {
            {1, 1_000, 3_500, 2.5},
            {1, 3_500, 3_500, 0},
            {1, 4_000, 3_500, 0},        // an arrival noted just after now was read: never negative
            {1, -1, 3_500, Double.NaN},  // none since this controller activated
            {0, 1_000, 3_500, Double.NaN},
        };
        for (double[] row : table) {
            assertThat(ControllerMetrics.heartbeatAgeSeconds(row[0] == 1, (long) row[1], (long) row[2]))
                .as("active=%s last=%s now=%s", row[0], row[1], row[2]).isEqualTo(Double.valueOf(row[3]));
        }
    }

    @Test
    void theEventLoopCountsWaitingEventsAndTimesEachOnItsClock() throws Exception {
        ManualTime time = new ManualTime();
        ControllerEventLoop loop = new ControllerEventLoop(1, time);
        LinkedBlockingQueue<Long> durations = new LinkedBlockingQueue<>();
        loop.onEventDone(durations::add);
        try {
            // A periodic duty waiting for its next turn is not a waiting event.
            loop.scheduleWithFixedDelay(() -> { }, 1, 1, TimeUnit.HOURS);
            assertThat(loop.readyEvents()).isZero();
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch running = new CountDownLatch(1);
            loop.execute(() -> {
                running.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                time.advance(7);
            });
            running.await();
            for (int i = 0; i < 3; i++) {
                loop.execute(() -> time.advance(2));
            }
            assertThat(loop.readyEvents()).as("three events behind the running one").isEqualTo(3);
            release.countDown();
            List<Long> seen = new java.util.ArrayList<>();
            for (int i = 0; i < 4; i++) {
                seen.add(durations.poll(10, TimeUnit.SECONDS));
            }
            assertThat(seen).containsExactly(7_000_000L, 2_000_000L, 2_000_000L, 2_000_000L);
            assertThat(loop.readyEvents()).isZero();
        } finally {
            loop.shutdownNow();
        }
    }
}
