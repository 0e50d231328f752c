package io.raftline.tests.faults;

import java.time.Duration;

/**
 * One kind of fault of the campaign: {@link #inject} puts it in place against the campaign's cluster and returns how to
 * end it. A fault that acts over time (flapping, clock jumps) runs its own thread until healed.
 */
interface Fault {

    /** The name in the fault log, the reports and the campaign table (e.g. "kill-leader"). */
    String name();

    /** The family the default suite runs one short fault of (e.g. "kill", "partition"). */
    String family();

    /**
     * Workload time to allow for the heal beyond the fault's hold: a fault whose heal restarts a node (its JVM start,
     * its catch-up) needs seconds, a cut or a link heals at once.
     */
    Duration healAllowance();

    /** The shortest time this fault is held, whatever the run's base hold (0: none). */
    default Duration minHold() {
        return Duration.ZERO;
    }

    /** Injects the fault, choosing its target with the run's seeded random. */
    Injected inject(FaultTarget target) throws Exception;

    /** A fault in place: what it hit (one word, for the fault log) and how to end it. */
    record Injected(String target, Heal heal) {
    }

    /** Ends a fault: restarts what was killed, heals a cut, restores a link; returns once the fault is gone. */
    @FunctionalInterface
    interface Heal {
        void heal() throws Exception;
    }
}
