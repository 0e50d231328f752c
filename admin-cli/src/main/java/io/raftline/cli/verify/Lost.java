package io.raftline.cli.verify;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code lost}: a record acknowledged to a producer of the given acks that the final reads (every partition from the
 * start, after the cluster healed) did not return at all. Counted per record. Run for {@code acks=all}, it is a safety
 * anomaly; for {@code acks=1}, whose losses are documented, it is only reported.
 */
public final class Lost implements Check {

    private final Event.Acks acks;

    public Lost(Event.Acks acks) {
        this.acks = acks;
    }

    @Override
    public String name() {
        return acks == Event.Acks.ALL ? "lost" : "acks1Lost";
    }

    @Override
    public Anomaly check(List<Event> events) {
        Set<String> finalValues = new HashSet<>();
        for (Event.Poll p : Position.polls(events)) {
            if (p.finalRead()) {
                finalValues.add(p.value());
            }
        }
        Anomaly.Builder found = new Anomaly.Builder(name());
        for (Event.Send s : Position.sends(events, acks)) {
            if (s.acked() && !finalValues.contains(s.value())) {
                found.add(s.topic(), s.partition(), s.offset(), s.value(), "acknowledged at " + ms(s.atNs())
                    + " by " + s.process() + ", absent from the final reads");
            }
        }
        return found.build();
    }

    static String ms(long ns) {
        return "t=" + ns / 1_000_000L + "ms";
    }
}
