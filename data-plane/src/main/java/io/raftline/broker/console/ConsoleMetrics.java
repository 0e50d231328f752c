package io.raftline.broker.console;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The node's own throughput and request-latency meters as totals since start; the page turns two readings into
 * rates and mean latencies over the interval between them, so the node keeps no history for the console.
 */
final class ConsoleMetrics {

    /** Counter totals by console name, summed over their tags (topic). */
    static final Map<String, String> COUNTERS = Map.of(
        "bytesIn", "raftline.broker.bytes.in",
        "bytesOut", "raftline.broker.bytes.out",
        "messagesIn", "raftline.broker.messages.in");
    static final String LATENCY = "raftline.request.latency";

    private ConsoleMetrics() {
    }

    /** Totals; {@code latency} maps an API to its request count and total and max time in ms. */
    record Reading(Map<String, Double> totals, Map<String, Latency> latency) {
    }

    record Latency(long count, double totalMs, double maxMs) {
    }

    static Reading read(MeterRegistry registry) {
        Map<String, Double> totals = new TreeMap<>();
        COUNTERS.forEach((name, meter) -> totals.put(name,
            registry.find(meter).counters().stream().mapToDouble(Counter::count).sum()));
        Map<String, Latency> latency = new TreeMap<>();
        for (Timer t : registry.find(LATENCY).timers()) {
            String api = t.getId().getTag("api");
            if (api == null) {
                continue;
            }
            Latency prev = latency.get(api);
            Latency now = new Latency(t.count(), t.totalTime(TimeUnit.MILLISECONDS), t.max(TimeUnit.MILLISECONDS));
            latency.put(api, prev == null ? now
                : new Latency(prev.count() + now.count(), prev.totalMs() + now.totalMs(), Math.max(prev.maxMs(), now.maxMs())));
        }
        return new Reading(totals, latency);
    }
}
