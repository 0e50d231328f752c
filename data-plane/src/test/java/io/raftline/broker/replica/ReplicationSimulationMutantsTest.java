package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.log.EpochEndOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The simulation has teeth: mutated copies of the decisions behind issue 20's defects 1, 3 and 6, each passed to
 * {@link ReplicationSimulation} in place of the production one, are caught within the default seeds.
 */
class ReplicationSimulationMutantsTest {

    /** Defect 1: the leader takes a follower's fetch offset as its log end before checking the fetch's epochs. */
    static FetchCheck.Outcome trustsFetchOffset(FetchCheck.Fetch fetch, FetchCheck.Leader leader, long registeredBrokerEpoch,
                                                Optional<EpochEndOffset> endOfLastFetchedEpoch) {
        FetchCheck.Outcome o = FetchCheck.decide(fetch, leader, registeredBrokerEpoch, endOfLastFetchedEpoch);
        return new FetchCheck.Outcome(o.error(), o.message(), o.divergingEpoch(), o.divergingEndOffset(), fetch.fromFollower());
    }

    @Test
    void defect1FollowerOffsetTrustedBeforeItsEpochIsCaught() {
        ReplicationSimulation.Decisions p = ReplicationSimulation.Decisions.production();
        assertCaught(new ReplicationSimulation.Decisions("defect 1: follower offset trusted before its epoch",
            ReplicationSimulationMutantsTest::trustsFetchOffset, p.epochStart(), p.staleAnswer()));
    }

    @Test
    void defect3NoEpochStartOffsetAtElectionIsCaught() {
        ReplicationSimulation.Decisions p = ReplicationSimulation.Decisions.production();
        assertCaught(new ReplicationSimulation.Decisions("defect 3: no epoch start offset at election", p.followerUpdate(),
            (log, epoch) -> log.logEnd(), p.staleAnswer()));
    }

    @Test
    void defect6StaleFetchAnswerAppliedIsCaught() {
        ReplicationSimulation.Decisions p = ReplicationSimulation.Decisions.production();
        assertCaught(new ReplicationSimulation.Decisions("defect 6: stale fetch answer applied", p.followerUpdate(),
            p.epochStart(), (sentEpoch, sentOffset, epoch, logEnd) -> true));
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
