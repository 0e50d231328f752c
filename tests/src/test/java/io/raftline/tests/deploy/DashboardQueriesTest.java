package io.raftline.tests.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.tests.observability.MetricsDoc;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/grafana/raftline-dashboard.json: it has the rows an operator looks for, every panel's PromQL parses
 * (promtool checks them written as recording rules, Grafana's variables replaced by values) and reads only series
 * that docs/metrics.md lists.
 */
class DashboardQueriesTest {

    private static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "raftline-dashboard.json");
    private static final List<String> ROWS = List.of("Cluster", "Brokers", "Topics", "Partitions", "Quorum", "Groups", "JVM");

    @TempDir
    Path tmp;

    /** Panel title -> its queries. */
    private static Map<String, List<String>> queries(JsonNode dashboard) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (JsonNode panel : dashboard.get("panels")) {
            List<String> exprs = new ArrayList<>();
            for (JsonNode target : panel.path("targets")) {
                if (target.hasNonNull("expr")) {
                    exprs.add(target.get("expr").asText());
                }
            }
            if (!exprs.isEmpty()) {
                out.put(panel.get("title").asText(), exprs);
            }
        }
        return out;
    }

    private static JsonNode dashboard() throws Exception {
        return new ObjectMapper().readTree(Files.readString(DASHBOARD, StandardCharsets.UTF_8));
    }

    /** The query as Prometheus gets it once Grafana has put its variables in. */
    static String resolved(String expr) {
        return expr.replace("$__rate_interval", "1m").replace("$__interval", "1m").replace("=~\"$job\"", "=~\"raftline\"")
            .replace("=~\"$topic\"", "=~\".*\"");
    }

    @Test
    void theDashboardHasARowPerArea() throws Exception {
        List<String> rows = new ArrayList<>();
        for (JsonNode panel : dashboard().get("panels")) {
            if (panel.path("type").asText().equals("row")) {
                rows.add(panel.get("title").asText());
            }
        }
        assertThat(rows).containsExactlyElementsOf(ROWS);
    }

    @Test
    void everyPanelQueryParses() throws Exception {
        var missing = Promtool.missing();
        Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElse(""));
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        int n = 0;
        for (Map.Entry<String, List<String>> e : queries(dashboard()).entrySet()) {
            for (String expr : e.getValue()) {
                rules.append("      - record: dashboard:panel_").append(n++).append('\n')
                    .append("        expr: '").append(resolved(expr).replace("'", "''")).append("'\n");
            }
        }
        assertThat(n).isGreaterThan(30);
        Files.writeString(tmp.resolve("panels.yml"), rules.toString(), StandardCharsets.UTF_8);
        Promtool.Run run = Promtool.run(tmp, "check", "rules", "panels.yml");
        assertThat(run.exitCode()).as(run.output()).isZero();
    }

    @Test
    void everyPanelReadsOnlyDocumentedSeries() throws Exception {
        Set<String> documented = MetricsDoc.families();
        Map<String, Set<String>> offenders = new LinkedHashMap<>();
        Set<String> read = new TreeSet<>();
        for (Map.Entry<String, List<String>> e : queries(dashboard()).entrySet()) {
            for (String expr : e.getValue()) {
                Set<String> series = MetricsDoc.seriesIn(resolved(expr));
                assertThat(series).as(e.getKey() + ": " + expr).isNotEmpty();
                read.addAll(series);
                Set<String> bad = MetricsDoc.undocumented(series, documented);
                if (!bad.isEmpty()) {
                    offenders.put(e.getKey(), bad);
                }
            }
        }
        assertThat(offenders).as("panels reading series docs/metrics.md does not list").isEmpty();
        assertThat(read).contains("raftline_log_end_offset", "raftline_request_latency_seconds_bucket", "jvm_gc_pause_seconds_max")
            .doesNotContain("histogram_quantile", "rate", "le", "job", "topic");
    }
}
