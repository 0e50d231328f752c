package io.raftline.cli.verify;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code skip}: within one reader's assignment of a partition, consecutive polls jumped from offset {@code a} to
 * {@code b} over an offset in between that holds a record (some reader, usually the final reads, returned it).
 * Gaps where no reader ever saw a record are not skips. Counted per jump.
 */
public final class Skip implements Check {

    @Override
    public String name() {
        return "skip";
    }

    @Override
    public Anomaly check(List<Event> events) {
        Map<Position.Partition, TreeSet<Long>> existing = new HashMap<>();
        for (Event.Poll p : Position.polls(events)) {
            existing.computeIfAbsent(new Position.Partition(p.topic(), p.partition()), k -> new TreeSet<>()).add(p.offset());
        }
        Anomaly.Builder found = new Anomaly.Builder(name());
        for (Map.Entry<Reading, List<Event.Poll>> e : Reading.of(events).entrySet()) {
            TreeSet<Long> offsets = existing.get(e.getKey().partition());
            long last = -1;
            for (Event.Poll p : e.getValue()) {
                if (last >= 0 && p.offset() > last + 1) {
                    Long missed = offsets.higher(last);
                    if (missed != null && missed < p.offset()) {
                        found.add(p.topic(), p.partition(), missed, null, p.process() + " jumped from offset " + last + " to "
                            + p.offset() + " in assignment " + p.assignment() + ", over " + missed + " that exists");
                    }
                }
                last = Math.max(last, p.offset());
            }
        }
        return found.build();
    }
}
