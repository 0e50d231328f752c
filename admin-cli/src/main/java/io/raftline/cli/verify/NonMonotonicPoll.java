package io.raftline.cli.verify;

import java.util.List;
import java.util.Map;

/**
 * {@code nonMonotonicPoll}: within one reader's assignment of a partition, a poll returned an offset at or below one
 * it had already returned (the log went back under the reader, or a record came twice). Counted per such step.
 */
public final class NonMonotonicPoll implements Check {

    @Override
    public String name() {
        return "nonMonotonicPoll";
    }

    @Override
    public Anomaly check(List<Event> events) {
        Anomaly.Builder found = new Anomaly.Builder(name());
        for (Map.Entry<Reading, List<Event.Poll>> e : Reading.of(events).entrySet()) {
            long last = -1;
            for (Event.Poll p : e.getValue()) {
                if (last >= 0 && p.offset() <= last) {
                    found.add(p.topic(), p.partition(), p.offset(), p.value(), p.process() + " read offset " + p.offset()
                        + " after " + last + " in assignment " + p.assignment());
                }
                last = Math.max(last, p.offset());
            }
        }
        return found.build();
    }
}
