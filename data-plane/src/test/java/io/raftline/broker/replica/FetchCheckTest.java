package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.log.EpochEndOffset;
import io.raftline.protocol.ErrorCode;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The leader's decision on one partition of a fetch, and whether it moves follower state, as a table. The leader is
 * broker 1 at epoch 5 over replicas [1, 2, 3], its log [10, 100); broker 2 is registered with broker epoch 42.
 */
class FetchCheckTest {

    private static final FetchCheck.Leader LEADER = new FetchCheck.Leader(1, 5, List.of(1, 2, 3), 10, 100);
    private static final long REGISTERED = 42;

    /** {@code end}: the leader's end of the fetch's last fetched epoch (null: its cache has none at or below it). */
    record Row(String name, int replicaId, long brokerEpoch, long fetchOffset, int currentLeaderEpoch, int lastFetchedEpoch,
               EpochEndOffset end, ErrorCode error, int divergingEpoch, boolean updatesFollower) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Row> table() {
        return Stream.of(
            new Row("caught-up follower", 2, 42, 100, 5, 5, end(5, 100), ErrorCode.NONE, -1, true),
            new Row("lagging follower", 2, 42, 50, 5, 4, end(4, 60), ErrorCode.NONE, -1, true),
            new Row("empty follower at the log start", 2, 42, 10, 5, -1, null, ErrorCode.NONE, -1, true),
            new Row("divergent: its last epoch never was the leader's", 2, 42, 80, 5, 3, end(2, 60), ErrorCode.NONE, 2, false),
            new Row("divergent: its last epoch ended earlier on the leader", 2, 42, 80, 5, 4, end(4, 60), ErrorCode.NONE, 4, false),
            new Row("divergent: past the leader's end in the current epoch", 2, 42, 101, 5, 5, end(5, 100), ErrorCode.NONE, 5, false),
            new Row("last epoch above all the leader has: unchecked", 2, 42, 100, 5, 6, null, ErrorCode.NONE, -1, false),
            new Row("no leader epoch named: reads, moves nothing", 2, 42, 100, -1, 5, end(5, 100), ErrorCode.NONE, -1, false),
            new Row("older leader epoch", 2, 42, 100, 4, 4, end(4, 100), ErrorCode.FENCED_LEADER_EPOCH, -1, false),
            new Row("newer leader epoch", 2, 42, 100, 6, 5, end(5, 100), ErrorCode.UNKNOWN_LEADER_EPOCH, -1, false),
            new Row("a broker outside the replica set", 7, 42, 100, 5, 5, end(5, 100), ErrorCode.INELIGIBLE_REPLICA, -1, false),
            new Row("the leader's own id", 1, 42, 100, 5, 5, end(5, 100), ErrorCode.INELIGIBLE_REPLICA, -1, false),
            new Row("an earlier incarnation's broker epoch", 2, 41, 100, 5, 5, end(5, 100), ErrorCode.STALE_BROKER_EPOCH, -1, false),
            new Row("no broker epoch (a client claiming the id)", 2, 0, 100, 5, 5, end(5, 100), ErrorCode.STALE_BROKER_EPOCH, -1,
                false),
            new Row("identity before divergence", 7, 0, 80, 5, 3, end(2, 60), ErrorCode.INELIGIBLE_REPLICA, -1, false),
            new Row("past the log end, no epoch", 2, 42, 101, 5, -1, null, ErrorCode.OFFSET_OUT_OF_RANGE, -1, false),
            new Row("before the log start", 2, 42, 5, 5, -1, null, ErrorCode.OFFSET_OUT_OF_RANGE, -1, false),
            new Row("consumer", -1, 0, 50, 5, -1, null, ErrorCode.NONE, -1, false),
            new Row("consumer: its last fetched epoch is not checked", -1, 0, 50, 5, 3, end(2, 20), ErrorCode.NONE, -1, false),
            new Row("consumer with an older leader epoch", -1, 0, 50, 4, -1, null, ErrorCode.FENCED_LEADER_EPOCH, -1, false),
            new Row("consumer past the log end", -1, 0, 101, -1, -1, null, ErrorCode.OFFSET_OUT_OF_RANGE, -1, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void decides(Row row) {
        FetchCheck.Fetch fetch = new FetchCheck.Fetch(row.replicaId(), row.brokerEpoch(), row.fetchOffset(),
            row.currentLeaderEpoch(), row.lastFetchedEpoch());
        FetchCheck.Outcome outcome = FetchCheck.decide(fetch, LEADER, REGISTERED, Optional.ofNullable(row.end()));
        assertThat(outcome.error()).isEqualTo(row.error());
        assertThat(outcome.divergingEpoch()).as("diverging epoch").isEqualTo(row.divergingEpoch());
        if (row.divergingEpoch() >= 0) {
            assertThat(outcome.divergingEndOffset()).isEqualTo(row.end().endOffset());
        }
        assertThat(outcome.read()).isEqualTo(row.error() == ErrorCode.NONE && row.divergingEpoch() < 0);
        assertThat(outcome.updatesFollower()).as("updates follower state").isEqualTo(row.updatesFollower());
    }

    private static EpochEndOffset end(int epoch, long endOffset) {
        return new EpochEndOffset(epoch, endOffset);
    }
}
