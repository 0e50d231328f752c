package io.raftline.cli.verify;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
        long acks1Acked = 0;
        long read = 0;
        Map<String, Long> errors = new HashMap<>();
        for (Event e : events) {
            if (e instanceof Event.Send s) {
                if (s.acks() == Event.Acks.ONE) {
                    acks1Acked += s.acked() ? 1 : 0;
                } else if (s.acked()) {
                    acked++;
                } else {
                    errors.merge(errorKind(s.error()), 1L, Long::sum);
                }
            } else if (e instanceof Event.Poll p && p.finalRead()) {
                read++;
            }
        }
        Map<String, Long> byCount = new LinkedHashMap<>();
        errors.entrySet().stream()
            .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
            .forEach(en -> byCount.put(en.getKey(), en.getValue()));
        return new Verdict(anomalies, acks1Acked, new Lost(Event.Acks.ONE).check(events), acked, byCount, read,
            Unavailability.check(history, faults));
    }

    /** An error with its numbers (offsets, ids, times) written {@code #}, so that sends failed alike count together. */
    static String errorKind(String error) {
        String kind = error == null ? "(no error recorded)" : error.replaceAll("[0-9]+", "#");
        return kind.length() > 200 ? kind.substring(0, 200) + "..." : kind;
    }
}
