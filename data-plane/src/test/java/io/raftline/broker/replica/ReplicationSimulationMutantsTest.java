package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.log.EpochEndOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The simulation has teeth: mutated copies of the decisions behind issue 20's defects 1, 3 and 6, and the earlier
 * behaviour of one defect the simulation itself found (an unanswered ISR change forgotten), each passed to {@link ReplicationSimulation} in place of
 * the production one, are caught within the default seeds (each test prints the first seed that catches it).
 */
class ReplicationSimulationMutantsTest {

    /** Defect 1: the leader takes a follower's fetch offset as its log end before checking the fetch's epochs. */
    static FetchCheck.Outcome trustsFetchOffset(FetchCheck.Fetch fetch, FetchCheck.Leader leader, long registeredBrokerEpoch,
                                                Optional<EpochEndOffset> endOfLastFetchedEpoch) {
        FetchCheck.Outcome o = FetchCheck.decide(fetch, leader, registeredBrokerEpoch, endOfLastFetchedEpoch);
        return new FetchCheck.Outcome(o.error(), o.message(), o.divergingEpoch(), o.divergingEndOffset(), fetch.fromFollower());
    }

    private static final ReplicationSimulation.Decisions PRODUCTION = ReplicationSimulation.Decisions.production();

    @Test
    void defect1FollowerOffsetTrustedBeforeItsEpochIsCaught() {
        assertCaught(PRODUCTION.withFollowerUpdate("defect 1: follower offset trusted before its epoch",
            ReplicationSimulationMutantsTest::trustsFetchOffset));
    }

    @Test
    void defect3NoEpochStartOffsetAtElectionIsCaught() {
        assertCaught(PRODUCTION.withEpochStart("defect 3: no epoch start offset at election", (log, epoch) -> log.logEnd()));
    }

    @Test
    void defect6StaleFetchAnswerAppliedIsCaught() {
        assertCaught(PRODUCTION.withStaleAnswer("defect 6: stale fetch answer applied", (sentEpoch, sentOffset, epoch, logEnd) -> true));
    }

    /** The defect the simulation found: an ISR change with no answer was dropped (taken as a refusal). */
    @Test
    void unansweredIsrChangeForgottenIsCaught() {
        assertCaught(PRODUCTION.withNoAnswer("unanswered ISR change forgotten",
            (state, change, nowMs) -> state.onIsrChangeAnswered(change, List.of(), -1, false, nowMs)));
    }

    private static void assertCaught(ReplicationSimulation.Decisions mutant) {
        int seeds = ReplicationSimulationTest.seedCount();
        for (long seed = 1; seed <= seeds; seed++) {
            ReplicationSimulation.Result r = new ReplicationSimulation(seed, mutant).run(ReplicationSimulationTest.STEPS);
            if (r.failed()) {
                System.out.println(mutant.name() + ": caught at seed=" + seed + " (replay with -Dsim.seed=" + seed + ")\n"
                    + r.violation());
                return;
            }
        }
        assertThat(false).as(mutant.name() + " survived " + seeds + " seeds").isTrue();
    }
}
