package io.raftline.cli.verify;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code moved}: an {@code acks=all} record that some reader (a group consumer or the final reads) found at another
 * position than the one its acknowledgement gave. Counted per record.
 */
public final class Moved implements Check {

    @Override
    public String name() {
        return "moved";
    }

    @Override
    public Anomaly check(List<Event> events) {
        Map<String, Set<Position>> reads = Position.readPositionsByValue(events);
        Anomaly.Builder found = new Anomaly.Builder(name());
        for (Event.Send s : Position.sends(events, Event.Acks.ALL)) {
            if (!s.acked()) {
                continue;
            }
            Position acked = new Position(s.topic(), s.partition(), s.offset());
            List<Position> elsewhere = reads.getOrDefault(s.value(), Set.of()).stream().filter(p -> !p.equals(acked)).toList();
            if (!elsewhere.isEmpty()) {
                found.add(s.topic(), s.partition(), s.offset(), s.value(), "acknowledged at " + acked + ", read at " + elsewhere);
            }
        }
        return found.build();
    }
}
