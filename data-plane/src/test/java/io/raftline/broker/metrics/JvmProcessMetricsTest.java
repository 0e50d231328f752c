package io.raftline.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The JVM and process series a node's scrape carries, under the names CLI.md lists. */
class JvmProcessMetricsTest {

    @Test
    void aScrapeCarriesTheJvmAndProcessSeries() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (JvmProcessMetrics ignored = new JvmProcessMetrics(registry)) {
            String scrape = registry.scrape();
            assertThat(scrape).containsPattern("\nprocess_open_fds [1-9]");
            for (String family : new String[] {"jvm_memory_used_bytes", "jvm_threads_live_threads",
                "jvm_classes_loaded_classes", "process_cpu_usage", "system_cpu_count", "process_files_open_files",
                "process_open_fds", "process_uptime_seconds"}) {
                assertThat(scrape).as(family).containsPattern("\n" + family + "[{ ]");
            }
        } finally {
            registry.close();
        }
    }

    @Test
    void gcPausesAreAHistogram() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (JvmProcessMetrics ignored = new JvmProcessMetrics(registry)) {
            // The GC binder registers its timer at the first pause; one recorded here goes through the same filter.
            Timer.builder(JvmProcessMetrics.GC_PAUSE).tag("action", "test").tag("cause", "test").tag("gc", "test")
                .register(registry).record(Duration.ofMillis(30));
            String scrape = registry.scrape();
            assertThat(scrape).contains("jvm_gc_pause_seconds_bucket{action=\"test\",cause=\"test\",gc=\"test\",le=\"+Inf\"} 1")
                .as("buckets below 30 ms are empty, those above hold the pause")
                .contains("le=\"0.001\"} 0").contains("le=\"60.0\"} 1");
        } finally {
            registry.close();
        }
    }
}
