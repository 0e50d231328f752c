package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A follower whose epoch cache ends with an epoch it assigned as leader and never wrote in (elected, then deposed
 * before its first append: common when every node restarts at once) must converge with the new leader in one
 * truncation. The leader's rule ({@link FetchCheck}) and the follower's ({@link FollowerDecisions}) run over two
 * in-memory logs with production's epoch rules; the follower's {@code truncateTo} at its own log end must drop that
 * epoch, else the leader answers the same divergence to every fetch (the fault campaign's power loss of all nodes left
 * a follower in that loop for good).
 */
class EpochWithoutRecordsTest {

    @Test
    void aFollowerWithAnEpochItNeverWroteInCatchesUp() {
        ReplicationSimulation.SimLog leader = new ReplicationSimulation.SimLog();
        ReplicationSimulation.SimLog follower = new ReplicationSimulation.SimLog();
        for (long v = 0; v < 10; v++) {
            leader.appendAsLeader(0, v);
            follower.appendAsLeader(0, v);
        }
        follower.assignEpochStartOffset(1);       // broker 2 led epoch 1 and wrote nothing
        leader.assignEpochStartOffset(2);         // broker 1 leads epoch 2 and writes
        leader.appendAsLeader(2, 10);
        leader.appendAsLeader(2, 11);

        FetchCheck.Leader state = new FetchCheck.Leader(1, 2, List.of(1, 2, 3), 0, leader.logEnd());
        int rounds = 0;
        while (true) {
            FetchCheck.Fetch fetch = new FetchCheck.Fetch(2, 7, follower.logEnd(), 2, follower.latestEpoch());
            FetchCheck.Outcome outcome = FetchCheck.decide(fetch, state, 7, leader.endOffsetForEpoch(fetch.lastFetchedEpoch()));
            if (outcome.read()) {
                break;
            }
            assertThat(outcome.diverging()).as(outcome.toString()).isTrue();
            assertThat(++rounds).as("fetches answered with a divergence (the follower names epoch " + follower.latestEpoch()
                + " at " + follower.logEnd() + ")").isLessThanOrEqualTo(2);
            follower.truncateTo(FollowerDecisions.divergenceTruncationOffset(outcome.divergingEndOffset(),
                follower.endOffsetForEpoch(outcome.divergingEpoch()), 0));
        }
        assertThat(follower.logEnd()).isEqualTo(10);
        assertThat(follower.latestEpoch()).isZero();
    }
}
