package io.raftline.cli.verify;

import java.util.List;

/** One anomaly's check: a pure function of a finished history's events (no clock, no I/O, no state kept). */
public interface Check {

    /** The anomaly's name in the JSON output. */
    String name();

    Anomaly check(List<Event> events);
}
