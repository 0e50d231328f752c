package io.raftline.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ThrottleTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;

    /** Steps of (at ms, record units, expected allowance after, expected throttle ms after) at 1000 units/s, 1 s window. */
    @Test
    void tokenBucketTable() {
        long[][] steps = {
            {0, 0, 1000, 0},        // starts full: one window's worth
            {0, 600, 400, 0},
            {0, 600, 0, 201},       // 200 in debt: 201 units' time to pass again
            {100, 0, 0, 101},       // 100 ms paid back 100
            {201, 0, 1, 0},
            {1201, 0, 1000, 0},     // refills to the window, no further
            {5000, 0, 1000, 0},
            {5000, 3000, 0, 2001},  // one use may overshoot: it passes, the debt waits
            {7000, 0, 0, 1},
            {7001, 0, 1, 0},
        };
        Throttle t = new Throttle(1000, SECOND, 0);
        for (long[] s : steps) {
            long now = s[0] * MS;
            t.record(s[1], now);
            assertThat(t.allowance(now)).as("allowance at %d ms", s[0]).isEqualTo(s[2]);
            assertThat(-Math.floorDiv(-t.throttleTimeNs(now), MS)).as("throttle at %d ms", s[0]).isEqualTo(s[3]);
            assertThat(t.exceeded(now)).isEqualTo(s[3] > 0);
        }
    }

    @Test
    void overAnySpanNoMoreThanRateTimesWindowPlusSpanPlusOneUsePasses() {
        long rate = 512 * 1024;
        Throttle t = new Throttle(rate, SECOND, 0);
        long passed = 0;
        long use = 64 * 1024;
        long now = 0;
        long end = 20 * SECOND;
        while (now < end) {
            if (t.allowance(now) > 0) {
                t.record(use, now);
                passed += use;
            }
            now += 7 * MS;
        }
        assertThat(passed).isLessThanOrEqualTo(rate * 21 + use).isGreaterThanOrEqualTo(rate * 20 - use);
    }

    @Test
    void unlimitedNeverThrottlesAndRateChangesApplyAtOnce() {
        Throttle t = new Throttle(Throttle.UNLIMITED, SECOND, 0);
        t.record(Long.MAX_VALUE / 2, 0);
        assertThat(t.allowance(0)).isEqualTo(Long.MAX_VALUE);
        assertThat(t.throttleTimeNs(0)).isZero();
        t.setRate(100, 0);
        assertThat(t.allowance(0)).isEqualTo(100);
        t.record(300, 0);
        assertThat(t.throttleTimeNs(0)).isEqualTo(2_010 * MS);
        t.setRate(Throttle.UNLIMITED, 0);
        assertThat(t.exceeded(0)).isFalse();
        t.setRate(1000, SECOND);
        assertThat(t.allowance(SECOND)).as("a new limit starts with a full bucket").isEqualTo(1000);
        t.setRate(10, SECOND);
        assertThat(t.allowance(SECOND)).as("capped at the smaller bucket").isEqualTo(10);
    }

    @Test
    void refusesNonsense() {
        assertThatThrownBy(() -> new Throttle(0, SECOND, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Throttle(1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
