package io.raftline.cli.verify;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code duplicate}: one value sent by an {@code acks=all} (idempotent) producer that readers found at two or more
 * positions; whether its send was acknowledged or failed does not matter, idempotence forbids both. Counted per value.
 * Values of the {@code acks=1} producer are left out: it is not idempotent, and its retries may store a record twice.
 */
public final class Duplicate implements Check {

    @Override
    public String name() {
        return "duplicate";
    }

    @Override
    public Anomaly check(List<Event> events) {
        Map<String, Set<Position>> reads = Position.readPositionsByValue(events);
        Set<String> sent = new LinkedHashSet<>();
        Position.sends(events, Event.Acks.ALL).forEach(s -> sent.add(s.value()));
        Anomaly.Builder found = new Anomaly.Builder(name());
        for (String value : sent) {
            Set<Position> at = reads.getOrDefault(value, Set.of());
            if (at.size() > 1) {
                Position first = at.iterator().next();
                found.add(first.topic(), first.partition(), first.offset(), value, "stored at " + at);
            }
        }
        return found.build();
    }
}
