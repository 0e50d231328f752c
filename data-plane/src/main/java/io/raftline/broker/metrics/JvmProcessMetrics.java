package io.raftline.broker.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import java.time.Duration;

/**
 * The standard JVM and process series every node exports (CLI.md "Metric names"): Micrometer's memory, GC (with a
 * pause histogram, so that alerts can compare pauses with the session timeout), thread, class-loading, CPU,
 * file-descriptor and uptime binders. {@link #close()} unhooks the GC binder's notification listeners, which
 * would otherwise outlive the node in a JVM that runs several (tests).
 */
public final class JvmProcessMetrics implements AutoCloseable {

    /** Micrometer's name of the GC pause timer ({@code jvm_gc_pause_seconds} in Prometheus). */
    static final String GC_PAUSE = "jvm.gc.pause";

    private final JvmGcMetrics gc;

    /** Binds every binder to {@code registry}, which must not yet hold a {@value #GC_PAUSE} timer. */
    public JvmProcessMetrics(MeterRegistry registry) {
        registry.config().meterFilter(gcPauseHistogram());
        new JvmMemoryMetrics().bindTo(registry);
        gc = new JvmGcMetrics();
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        // CLI.md promises process_open_fds (the Prometheus Java client's name); Micrometer's is process_files_open_files.
        Gauge.builder("process.open.fds", registry, r -> r.get("process.files.open").gauge().value())
            .description("Open file descriptors (as process_files_open_files)").baseUnit(null).register(registry);
        new UptimeMetrics().bindTo(registry);
    }

    /** Buckets for the GC pause timer only: from 1 ms to 60 s, which covers any session timeout. */
    static MeterFilter gcPauseHistogram() {
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (!id.getName().equals(GC_PAUSE)) {
                    return config;
                }
                return DistributionStatisticConfig.builder().percentilesHistogram(true)
                    .minimumExpectedValue((double) Duration.ofMillis(1).toNanos())
                    .maximumExpectedValue((double) Duration.ofSeconds(60).toNanos())
                    .build().merge(config);
            }
        };
    }

    @Override
    public void close() {
        gc.close();
    }
}
