package io.raftline.cli.verify;

import java.util.List;

/** Runs every check over a finished history and gives the {@link Verdict}. */
public final class Checker {

    /** The safety checks, in the order the JSON output and the report list them. */
    public static final List<Check> SAFETY = List.of(new Lost(Event.Acks.ALL), new Moved(), new Duplicate(),
        new InconsistentOffsets(), new NonMonotonicPoll(), new Skip(), new CommittedOffsetRegression());

    private Checker() {
    }

    public static Verdict check(History history, FaultLog faults) {
        List<Event> events = history.events();
        List<Anomaly> anomalies = SAFETY.stream().map(c -> c.check(events)).toList();
        long acked = 0;
        long failed = 0;
        long acks1Acked = 0;
        long read = 0;
        for (Event e : events) {
            if (e instanceof Event.Send s) {
                if (s.acks() == Event.Acks.ONE) {
                    acks1Acked += s.acked() ? 1 : 0;
                } else if (s.acked()) {
                    acked++;
                } else {
                    failed++;
                }
            } else if (e instanceof Event.Poll p && p.finalRead()) {
                read++;
            }
        }
        return new Verdict(anomalies, acks1Acked, new Lost(Event.Acks.ONE).check(events), acked, failed, read,
            Unavailability.check(history, faults));
    }
}
