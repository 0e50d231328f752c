package io.raftline.cli.verify;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Where a record sits: topic, partition, offset. With the indexes over reads that several checks share. */
record Position(String topic, int partition, long offset) {

    @Override
    public String toString() {
        return topic + "-" + partition + "@" + offset;
    }

    /** One partition. */
    record Partition(String topic, int partition) {
        @Override
        public String toString() {
            return topic + "-" + partition;
        }
    }

    Partition partitionOf() {
        return new Partition(topic, partition);
    }

    static Position of(Event.Poll p) {
        return new Position(p.topic(), p.partition(), p.offset());
    }

    static List<Event.Poll> polls(List<Event> events) {
        List<Event.Poll> out = new ArrayList<>();
        for (Event e : events) {
            if (e instanceof Event.Poll p) {
                out.add(p);
            }
        }
        return out;
    }

    static List<Event.Send> sends(List<Event> events, Event.Acks acks) {
        List<Event.Send> out = new ArrayList<>();
        for (Event e : events) {
            if (e instanceof Event.Send s && s.acks() == acks) {
                out.add(s);
            }
        }
        return out;
    }

    /** Every position at which each value was read (by any reader), in the order first seen. */
    static Map<String, Set<Position>> readPositionsByValue(List<Event> events) {
        Map<String, Set<Position>> out = new HashMap<>();
        for (Event.Poll p : polls(events)) {
            out.computeIfAbsent(p.value(), v -> new LinkedHashSet<>()).add(of(p));
        }
        return out;
    }

    /** Every value read (by any reader) at each position, in the order first seen. */
    static Map<Position, Set<String>> readValuesByPosition(List<Event> events) {
        Map<Position, Set<String>> out = new LinkedHashMap<>();
        for (Event.Poll p : polls(events)) {
            out.computeIfAbsent(of(p), k -> new LinkedHashSet<>()).add(p.value());
        }
        return out;
    }
}
