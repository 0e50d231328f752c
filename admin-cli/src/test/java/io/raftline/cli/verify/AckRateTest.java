package io.raftline.cli.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Acknowledgements per whole second of history time, for the report's plot. */
class AckRateTest {

    private static final long S = 1_000_000_000L;
    private static final long MS = 1_000_000L;

    static List<Arguments> buckets() {
        return List.of(
            // acks (history ns), workload end (ns), counts per second
            Arguments.of("no acknowledgement", new long[] {}, 3 * S, new long[] {0, 0, 0}),
            Arguments.of("one per second", new long[] {0, S, 2 * S}, 3 * S, new long[] {1, 1, 1}),
            Arguments.of("a second is [i s, i+1 s)", new long[] {S - 1, S, 2 * S - 1}, 3 * S, new long[] {1, 2, 0}),
            Arguments.of("any order", new long[] {2500 * MS, 100 * MS, 2400 * MS, 1500 * MS}, 3 * S, new long[] {1, 1, 2}),
            Arguments.of("a gap shows as zeros", new long[] {100 * MS, 200 * MS, 3100 * MS}, 4 * S, new long[] {2, 0, 0, 1}),
            Arguments.of("the trailing fraction of a second is left out", new long[] {500 * MS, 1500 * MS, 2100 * MS}, 2900 * MS,
                new long[] {1, 1}),
            Arguments.of("acks after the workload's end (the drain) are left out", new long[] {500 * MS, 2 * S + 1, 5 * S}, 2 * S,
                new long[] {1, 0}),
            Arguments.of("before the history's start is left out", new long[] {-1, 0}, S, new long[] {1}),
            Arguments.of("a workload shorter than a second has no whole second", new long[] {100 * MS}, 900 * MS, new long[] {}),
            Arguments.of("no workload", new long[] {}, 0, new long[] {}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("buckets")
    void countsPerWholeSecond(String name, long[] acks, long endNs, long[] expected) {
        assertThat(AckRate.perSecond(acks, endNs)).containsExactly(expected);
    }

    @Test
    void theAckTimesOfOneKindOfProducerAndTheWorkloadsEnd() {
        History h = Histories.history().phase(Event.Phase.WORKLOAD_START, 0).at(10).acked("a", 0).failed("b").acked1("c", 1)
            .at(20).acked("d", 2).phase(Event.Phase.WORKLOAD_END, 30).at(40).acked("e", 3).build();
        List<Event> events = h.events();
        assertThat(AckRate.ackTimes(events, Event.Acks.ALL)).containsExactly(11 * MS, 21 * MS, 41 * MS);
        assertThat(AckRate.ackTimes(events, Event.Acks.ONE)).containsExactly(13 * MS);
        assertThat(AckRate.workloadEndNs(events)).isEqualTo(30 * MS);
        // without a workload-end phase (a history cut short), the last acknowledgement ends it
        assertThat(AckRate.workloadEndNs(events.stream().filter(e -> !(e instanceof Event.Phase)).toList())).isEqualTo(41 * MS);
        assertThat(AckRate.workloadEndNs(List.of())).isZero();
    }
}
