package io.raftline.client.internals.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.internals.retry.ExponentialBackoff;
import org.junit.jupiter.api.Test;

/** The per-broker backoff as a table: each broker on its own, doubling per failure, reset by a fetch that reaches it. */
class NodeBackoffTest {

    private final NodeBackoff backoff = new NodeBackoff(ExponentialBackoff.ofClient(50, 1000));

    @Test
    void doublesPerConsecutiveFailureUpToTheMaxAndResetsWhenTheBrokerIsReached() {
        long[][] table = {
            // failure at ms, expected wait (draw 0.5: no spread)
            {0, 50}, {50, 100}, {150, 200}, {350, 400}, {750, 800}, {1550, 1000}, {2550, 1000},
        };
        for (long[] row : table) {
            assertThat(backoff.failed(1, row[0], 0.5)).as("failure at " + row[0]).isEqualTo(row[1]);
            assertThat(backoff.isBackedOff(1, row[0] + row[1] - 1)).isTrue();
            assertThat(backoff.isBackedOff(1, row[0] + row[1])).isFalse();
        }
        backoff.reached(1);
        assertThat(backoff.isBackedOff(1, 3550)).isFalse();
        assertThat(backoff.failed(1, 3550, 0.5)).as("the first backoff again").isEqualTo(50);
    }

    @Test
    void brokersAreIndependentAndTheSoonestEndIsKnown() {
        assertThat(backoff.msUntilNextReady(0)).as("none running").isEqualTo(-1);
        backoff.failed(1, 0, 0.5);
        backoff.failed(1, 50, 0.5); // broker 1: until 150
        backoff.failed(2, 60, 0.0); // broker 2: 50 - 20% = 40, until 100
        assertThat(backoff.isBackedOff(3, 60)).isFalse();
        assertThat(backoff.msUntilNextReady(60)).isEqualTo(40);
        assertThat(backoff.msUntilNextReady(100)).as("broker 2 done; broker 1 until 150").isEqualTo(50);
        assertThat(backoff.msUntilNextReady(150)).isEqualTo(-1);
        assertThat(backoff.failed(2, 200, 0.999999)).as("+20% of 100").isEqualTo(120);
    }
}
