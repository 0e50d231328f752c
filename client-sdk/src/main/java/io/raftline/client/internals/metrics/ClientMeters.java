package io.raftline.client.internals.metrics;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.raftline.client.common.MetricName;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A client's meters: kept in a registry of the client's own, so that {@code metrics()} can always answer (as
 * kafka-clients' does), and also in the application's registry when it passed one.
 */
public final class ClientMeters {

    private final SimpleMeterRegistry own = new SimpleMeterRegistry();
    private final MeterRegistry registry;

    /** {@code application} may be null: then the meters live in the client's own registry only. */
    public ClientMeters(MeterRegistry application) {
        if (application == null) {
            registry = own;
        } else {
            CompositeMeterRegistry both = new CompositeMeterRegistry(Clock.SYSTEM);
            both.add(own);
            both.add(application);
            registry = both;
        }
    }

    /** Where the client registers its meters. */
    public MeterRegistry registry() {
        return registry;
    }

    /** Every statistic of every meter of this client, as it is now. */
    public Map<MetricName, Double> snapshot() {
        Map<MetricName, Double> out = new LinkedHashMap<>();
        for (Meter meter : own.getMeters()) {
            for (Measurement m : meter.measure()) {
                Map<String, String> tags = new LinkedHashMap<>();
                for (Tag t : meter.getId().getTags()) {
                    tags.put(t.getKey(), t.getValue());
                }
                tags.put("statistic", m.getStatistic().name().toLowerCase(Locale.ROOT));
                out.put(new MetricName(meter.getId().getName(), tags), m.getValue());
            }
        }
        return out;
    }
}
