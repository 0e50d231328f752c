package io.raftline.cli.verify;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code unavailability}: the longest time without any successful {@code acks=all} acknowledgement, over the whole
 * workload and within each fault window. A pure function of the history and the fault log.
 *
 * <p>The points in time are the acknowledgements, sorted, with the workload's end after them (so a cluster that stops
 * acknowledging before the end shows the gap to the end). Overall, gaps are measured from the first acknowledgement:
 * the time before it is the clients' start (metadata, producer ids), not the cluster's. A fault window
 * [start, end) (an open one lasts to the workload's end) takes the longest gap that overlaps it, counting from the
 * workload's start too; such a gap usually begins just before the fault (the last acknowledgement before a kill) and
 * ends with the first acknowledgement after the cluster recovered.
 */
public final class Unavailability {

    private Unavailability() {
    }

    /** One fault window's longest gap; {@code startNs}/{@code endNs} are the window in history time. */
    public record WindowGap(FaultLog.Window window, long startNs, long endNs, long maxNoAckGapMs) {
    }

    /**
     * @param maxNoAckGapMs the longest gap overall
     * @param gapStartNs    where (history time) that gap began
     * @param windows       one entry per fault window, in the fault log's order
     */
    public record Report(long maxNoAckGapMs, long gapStartNs, List<WindowGap> windows) {
        public Report {
            windows = List.copyOf(windows);
        }
    }

    public static Report check(History history, FaultLog faults) {
        List<Event> events = history.events();
        long workStart = -1;
        long workEnd = -1;
        List<Long> acks = new ArrayList<>();
        for (Event e : events) {
            if (e instanceof Event.Send s && s.acks() == Event.Acks.ALL && s.acked()) {
                acks.add(s.atNs());
            } else if (e instanceof Event.Phase p && p.name().equals(Event.Phase.WORKLOAD_START)) {
                workStart = p.atNs();
            } else if (e instanceof Event.Phase p && p.name().equals(Event.Phase.WORKLOAD_END)) {
                workEnd = p.atNs();
            }
        }
        acks.sort(null);
        if (workStart < 0) {
            workStart = acks.isEmpty() ? 0 : acks.get(0);
        }
        if (workEnd < 0) {
            workEnd = acks.isEmpty() ? workStart : acks.get(acks.size() - 1);
        }
        List<Long> points = new ArrayList<>(acks.size() + 2);
        points.add(workStart);
        points.addAll(acks);
        if (acks.isEmpty() || acks.get(acks.size() - 1) < workEnd) {
            points.add(workEnd);
        }
        long maxGap = 0;
        long gapStart = workStart;
        // overall: from the first acknowledgement (index 1), or across the whole run when nothing was acknowledged
        for (int i = acks.isEmpty() ? 0 : 1; i + 1 < points.size(); i++) {
            long gap = points.get(i + 1) - points.get(i);
            if (gap > maxGap) {
                maxGap = gap;
                gapStart = points.get(i);
            }
        }
        List<WindowGap> windows = new ArrayList<>();
        for (FaultLog.Window w : faults.windows()) {
            long start = history.toHistoryNs(w.startMs());
            long end = w.open() ? workEnd : history.toHistoryNs(w.endMs());
            long worst = 0;
            for (int i = 0; i + 1 < points.size(); i++) {
                if (points.get(i + 1) > start && points.get(i) < Math.max(end, start + 1)) {
                    worst = Math.max(worst, points.get(i + 1) - points.get(i));
                }
            }
            windows.add(new WindowGap(w, start, end, worst / 1_000_000L));
        }
        return new Report(maxGap / 1_000_000L, gapStart, windows);
    }
}
