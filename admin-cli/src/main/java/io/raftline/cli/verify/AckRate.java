package io.raftline.cli.verify;

import java.util.List;

/**
 * Acknowledged records per second of a run, for the report's plot: a pure function of the history. Second {@code i}
 * is [i s, i+1 s) of history time (the time since the history started, as in the fault timeline). Only whole seconds
 * of the workload count: the plot ends at the last whole second before the workload's end, because the
 * acknowledgements that arrive after it are the in-flight sends draining, not a rate the cluster sustained, and a
 * fraction of a second would show a dip (counted) or a spike (scaled) that did not happen.
 */
public final class AckRate {

    private static final long SECOND_NS = 1_000_000_000L;

    private AckRate() {
    }

    /**
     * Counts {@code ackNs} (history ns, any order) per second over the whole seconds before {@code endNs}; times
     * before 0 or in the trailing fraction of a second are left out.
     *
     * @return one count per second, {@code floor(endNs / 1 s)} of them
     */
    public static long[] perSecond(long[] ackNs, long endNs) {
        int seconds = (int) Math.max(0, endNs / SECOND_NS);
        long[] counts = new long[seconds];
        for (long t : ackNs) {
            if (t >= 0 && t / SECOND_NS < seconds) {
                counts[(int) (t / SECOND_NS)]++;
            }
        }
        return counts;
    }

    /** When the acknowledgements of producers of kind {@code acks} arrived (history ns), in the history's order. */
    public static long[] ackTimes(List<Event> events, Event.Acks acks) {
        return events.stream().filter(e -> e instanceof Event.Send s && s.acks() == acks && s.acked()).mapToLong(Event::atNs)
            .toArray();
    }

    /** The workload's end (history ns): its {@code workload-end} phase, else the last acknowledgement, else 0. */
    public static long workloadEndNs(List<Event> events) {
        long lastAck = 0;
        for (Event e : events) {
            if (e instanceof Event.Phase p && p.name().equals(Event.Phase.WORKLOAD_END)) {
                return p.atNs();
            }
            if (e instanceof Event.Send s && s.acked()) {
                lastAck = Math.max(lastAck, s.atNs());
            }
        }
        return lastAck;
    }
}
