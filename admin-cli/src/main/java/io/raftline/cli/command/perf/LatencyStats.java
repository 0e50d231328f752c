package io.raftline.cli.command.perf;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.output.Json;
import org.HdrHistogram.Recorder;
import org.HdrHistogram.Histogram;

/**
 * Latencies in microseconds, recorded from any thread (callbacks), read as a whole for the summary and as
 * windows for the 5-second progress lines.
 */
final class LatencyStats {

    private final Recorder recorder = new Recorder(3);
    private final Histogram total = new Histogram(3);
    private Histogram window;

    void recordMicros(long micros) {
        recorder.recordValue(Math.max(0, micros));
    }

    /** Moves what was recorded since the last call into the total and returns that window. */
    synchronized Histogram interval() {
        window = recorder.getIntervalHistogram(window);
        total.add(window);
        return window;
    }

    synchronized Histogram total() {
        interval();
        return total;
    }

    static double ms(double micros) {
        return Math.round(micros / 10.0) / 100.0;
    }

    static ObjectNode summary(Histogram h) {
        ObjectNode o = Json.object();
        o.put("avg", ms(h.getMean()));
        o.put("p50", ms(h.getValueAtPercentile(50)));
        o.put("p95", ms(h.getValueAtPercentile(95)));
        o.put("p99", ms(h.getValueAtPercentile(99)));
        o.put("p999", ms(h.getValueAtPercentile(99.9)));
        o.put("max", ms(h.getMaxValue()));
        return o;
    }
}
