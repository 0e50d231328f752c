package io.raftline.client.internals.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ExponentialBackoffTest {

    @ParameterizedTest(name = "{0} failures, draw {1} -> {2} ms")
    @CsvSource({
        "0, 0.5, 0",        // no failure yet: no wait
        "1, 0.5, 100",      // the first backoff is retry.backoff.ms
        "2, 0.5, 200",      // doubled after each failure
        "3, 0.5, 400",
        "4, 0.5, 800",
        "5, 0.5, 1000",     // capped at retry.backoff.max.ms
        "60, 0.5, 1000",
        "1, 0.0, 80",       // -20%
        "1, 0.999999, 120", // just under +20%
        "3, 0.0, 320",
        "5, 0.999999, 1000", // jitter never takes it past the cap
        "5, 0.0, 800",
    })
    void doublesUpToTheCapWithTwentyPercentJitter(int failures, double draw, long expectedMs) {
        assertThat(ExponentialBackoff.ofClient(100, 1000).backoffMs(failures, draw)).isEqualTo(expectedMs);
    }

    @Test
    void drawsStayWithinTheSpread() {
        long seed = 20261201L;
        SplittableRandom random = new SplittableRandom(seed);
        ExponentialBackoff backoff = ExponentialBackoff.ofClient(50, 10_000);
        for (int i = 0; i < 10_000; i++) {
            int failures = 1 + random.nextInt(10);
            long ms = backoff.backoffMs(failures, random.nextDouble());
            long term = Math.min(10_000, 50L << (failures - 1));
            assertThat(ms).as("seed %d, %d failures", seed, failures).isBetween(Math.round(term * 0.8), Math.min(10_000,
                Math.round(term * 1.2)));
        }
    }

    @Test
    void noBackoffAndBadBoundsAreRefused() {
        assertThat(ExponentialBackoff.ofClient(0, 0).backoffMs(5, 0.3)).isZero();
        assertThat(ExponentialBackoff.ofClient(100, 10).backoffMs(3, 0.5)).isEqualTo(100);
        assertThatThrownBy(() -> new ExponentialBackoff(-1, 10, 0.2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ExponentialBackoff(1, 10, 1.0)).isInstanceOf(IllegalArgumentException.class);
    }
}
