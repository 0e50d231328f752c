package io.raftline.broker.replica;

import static io.raftline.broker.replica.PartitionStateTest.f;
import static io.raftline.broker.replica.PartitionStateTest.leader;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * When a leader refuses writes for having lost touch ({@link PartitionState#refusesWrites}): only when the controller
 * has been silent for longer than the broker session and an ISR follower has not fetched for as long. Session 1.5 s,
 * now = 50 s; the leader is broker 1 of replicas 1, 2, 3.
 */
class RefusesWritesTest {

    private static final long NOW = 50_000;
    private static final long SESSION = 1_500;

    static Stream<Arguments> cases() {
        return Stream.of(
            // controller silence, ISR, followers' last fetch (2, 3; -1: no state), refuses
            Arguments.of("the controller answers: never", 200L, List.of(1, 2, 3), NOW - 60_000, NOW - 60_000, false),
            Arguments.of("silence just at the session", SESSION, List.of(1, 2, 3), NOW - 60_000, NOW - 60_000, false),
            Arguments.of("cut off: the controller silent, no follower fetching", 1_600L, List.of(1, 2, 3), NOW - 1_600, NOW - 1_700, true),
            Arguments.of("quorum lost, followers still fetching: go on", 60_000L, List.of(1, 2, 3), NOW - 100, NOW - 300, false),
            Arguments.of("quorum lost and one ISR follower gone: acks=all could not commit", 60_000L, List.of(1, 2, 3), NOW - 100,
                NOW - 1_501, true),
            Arguments.of("a follower out of the ISR does not count", 60_000L, List.of(1, 2), NOW - 100, NOW - 60_000, false),
            Arguments.of("alone in the ISR: never", 60_000L, List.of(1), NOW - 60_000, NOW - 60_000, false),
            Arguments.of("an ISR follower this leader never heard from", 60_000L, List.of(1, 2, 3), NOW - 100, -1L, true),
            Arguments.of("no controller answer since the start", Long.MAX_VALUE, List.of(1, 2, 3), NOW - 100, NOW - 100, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void refusesOnlyWhenCutOffFromTheControllerAndAFollower(String why, long silenceMs, List<Integer> isr, long fetch2, long fetch3,
                                                             boolean refuses) {
        PartitionState s = fetch3 < 0 ? leader(isr, null, 10, 10, 0, f(2, 10, fetch2, fetch2))
            : leader(isr, null, 10, 10, 0, f(2, 10, fetch2, fetch2), f(3, 10, fetch3, fetch3));
        assertThat(s.refusesWrites(NOW, silenceMs, SESSION)).as(why).isEqualTo(refuses);
    }
}
