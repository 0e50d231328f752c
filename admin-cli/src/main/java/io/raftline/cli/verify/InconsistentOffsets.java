package io.raftline.cli.verify;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code inconsistentOffsets}: one position at which readers saw two or more different values (two consumers, or a
 * consumer and the final reads, disagree on what the log holds there). Counted per position. Every read counts,
 * those of {@code acks=1} records too: what a consumer may read is committed, whatever the producer asked for.
 */
public final class InconsistentOffsets implements Check {

    @Override
    public String name() {
        return "inconsistentOffsets";
    }

    @Override
    public Anomaly check(List<Event> events) {
        Anomaly.Builder found = new Anomaly.Builder(name());
        for (Map.Entry<Position, Set<String>> e : Position.readValuesByPosition(events).entrySet()) {
            if (e.getValue().size() > 1) {
                Position p = e.getKey();
                found.add(p.topic(), p.partition(), p.offset(), e.getValue().iterator().next(), "values read there: " + e.getValue());
            }
        }
        return found.build();
    }
}
