package io.raftline.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The arithmetic behind a group's lag in time. */
class BrokerMetricsTest {

    @ParameterizedTest(name = "before {0}, lag {1}, now {2} -> caught up at {3}")
    @CsvSource(nullValues = "null", value = {
        "null, 0, 1000, 1000",
        "null, 50, 1000, 1000",
        "400, 0, 1000, 1000",
        "400, 50, 1000, 400",
        "1200, 50, 1000, 1000",
    })
    void aGroupIsCaughtUpWhenItsLagIsZeroAndOtherwiseKeepsTheLastTimeItWas(Long previousMs, long lag, long nowMs,
                                                                             long expected) {
        assertThat(BrokerMetrics.caughtUpSince(previousMs, lag, nowMs)).isEqualTo(expected);
    }
}
