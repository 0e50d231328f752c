package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import org.junit.jupiter.api.Test;

/**
 * Runs {@link ReplicationSimulation} with the production decisions over many seeds: {@code sim.seeds} of them
 * (default {@value #DEFAULT_SEEDS}, {@value #SYSTEM_SEEDS} with {@code -Draftline.system=true}, which
 * {@code ./raftline test --system} sets), or the one given as {@code -Dsim.seed=N} to replay a failure.
 */
class ReplicationSimulationTest {

    static final int DEFAULT_SEEDS = 2_000;
    static final int SYSTEM_SEEDS = 50_000;
    static final int STEPS = 2_000;

    static int seedCount() {
        return Integer.getInteger("sim.seeds", Boolean.getBoolean("raftline.system") ? SYSTEM_SEEDS : DEFAULT_SEEDS);
    }

    @Test
    void productionDecisionsKeepEveryInvariant() {
        Long replay = Long.getLong("sim.seed");
        long first = replay != null ? replay : 1;
        long count = replay != null ? 1 : seedCount();
        ReplicationSimulation.Stats total = new ReplicationSimulation.Stats();
        long startNs = System.nanoTime();
        for (long seed = first; seed < first + count; seed++) {
            ReplicationSimulation.Result r = new ReplicationSimulation(seed, ReplicationSimulation.Decisions.production()).run(STEPS);
            if (r.failed()) {
                fail("seed=" + seed + ", replay with -Dsim.seed=" + seed + "\n" + r.violation());
            }
            total.add(r.stats());
        }
        double seconds = (System.nanoTime() - startNs) / 1e9;
        System.out.printf("replication simulation: %d seeds from %d in %.1f s (%.0f seeds/s): %s%n", count, first, seconds,
            count / seconds, total);
        if (replay == null) {
            // Not vacuous: the runs acknowledge writes, change leaders, truncate, crash and lose unflushed data.
            assertThat(total.acked).as("acknowledged records").isGreaterThan(count);
            assertThat(total.leaderChanges).as("leader changes").isGreaterThan(count);
            assertThat(total.truncations).as("truncations").isGreaterThan(0);
            assertThat(total.powerLosses).as("crashes losing unflushed data").isGreaterThan(0);
            assertThat(total.isrChanges).as("ISR changes").isGreaterThan(0);
            assertThat(total.staleAnswersDropped).as("stale fetch answers dropped").isGreaterThan(0);
        }
    }

    /**
     * Seeds beyond the default ones that broke an invariant, kept as regression tests (each failed before its fix,
     * with this simulation as it is). 19165: an unanswered ISR expansion was retried with the member epochs of the
     * moment, not those it was proposed with, so a follower that had restarted with a lost tail was added. 26247,
     * 31908, 35326, 40926: metadata at a partition epoch the leader already had from the controller's answer to its
     * own ISR change dropped the change it had proposed since; the HW then passed offsets the member the controller
     * added lacked, and that member was elected.
     */
    @Test
    void regressionSeeds() {
        for (long seed : new long[] {19165, 26247, 31908, 35326, 40926}) {
            ReplicationSimulation.Result r = new ReplicationSimulation(seed, ReplicationSimulation.Decisions.production()).run(STEPS);
            assertThat(r.violation()).as("seed=%s, replay with -Dsim.seed=%s", seed, seed).isNull();
        }
    }

    @Test
    void aSeedReplaysExactly() {
        for (long seed : new long[] {7, 1234567}) {
            ReplicationSimulation.Result a = new ReplicationSimulation(seed, ReplicationSimulation.Decisions.production()).run(STEPS);
            ReplicationSimulation.Result b = new ReplicationSimulation(seed, ReplicationSimulation.Decisions.production()).run(STEPS);
            assertThat(b.stats().toString()).as("seed %s", seed).isEqualTo(a.stats().toString());
            assertThat(b.violation()).isEqualTo(a.violation());
        }
    }
}
