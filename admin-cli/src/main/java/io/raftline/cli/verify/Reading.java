package io.raftline.cli.verify;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One reader's reads of one partition within one assignment: the unit in which offsets must go up one record at a
 * time. A reassignment starts a new reading (from the committed offset, which may repeat records legitimately).
 */
record Reading(String process, long assignment, Position.Partition partition) {

    /** The polls of each reading, each list in history order (the order that reader polled them). */
    static Map<Reading, List<Event.Poll>> of(List<Event> events) {
        Map<Reading, List<Event.Poll>> out = new LinkedHashMap<>();
        for (Event.Poll p : Position.polls(events)) {
            Reading key = new Reading(p.process(), p.assignment(), new Position.Partition(p.topic(), p.partition()));
            out.computeIfAbsent(key, k -> new ArrayList<>()).add(p);
        }
        return out;
    }
}
