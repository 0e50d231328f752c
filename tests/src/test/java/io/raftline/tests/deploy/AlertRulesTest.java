package io.raftline.tests.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.tests.observability.MetricsDoc;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * deploy/prometheus/raftline-alerts.yml: promtool accepts it, its unit tests (a firing and a silent case per alert,
 * raftline-alerts.test.yml) pass, every alert has both, and every series it reads is in docs/metrics.md.
 */
class AlertRulesTest {

    private static final Path DIR = Path.of("..", "deploy", "prometheus");
    private static final Pattern ALERT = Pattern.compile("(?m)^\\s+- alert: (\\w+)");

    @BeforeAll
    static void promtool() {
        var missing = Promtool.missing();
        // Only where apt-get cannot install it (not root, no network to Debian's packages).
        Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElse(""));
    }

    @Test
    void promtoolAcceptsTheRules() {
        Promtool.Run run = Promtool.run(DIR, "check", "rules", "raftline-alerts.yml");
        assertThat(run.exitCode()).as(run.output()).isZero();
    }

    @Test
    void everyAlertFiresJustOverItsThresholdAndStaysSilentJustUnder() throws Exception {
        Promtool.Run run = Promtool.run(DIR, "test", "rules", "raftline-alerts.test.yml");
        assertThat(run.exitCode()).as(run.output()).isZero();
        String tests = Files.readString(DIR.resolve("raftline-alerts.test.yml"), StandardCharsets.UTF_8);
        for (String alert : alerts()) {
            // A case is the alertname line and the next one (where a firing case lists its alerts).
            Matcher m = Pattern.compile("alertname: " + alert + "\\b[^\\n]*\\n?[^\\n]*").matcher(tests);
            int firing = 0;
            int silent = 0;
            while (m.find()) {
                if (m.group().contains("exp_alerts: []")) {
                    silent++;
                } else {
                    firing++;
                }
            }
            assertThat(firing).as(alert + ": a case where it fires").isPositive();
            assertThat(silent).as(alert + ": a case where it stays silent").isPositive();
        }
    }

    @Test
    void theRulesReadOnlyDocumentedSeries() throws Exception {
        String rules = Files.readString(DIR.resolve("raftline-alerts.yml"), StandardCharsets.UTF_8);
        List<String> exprs = new ArrayList<>();
        for (String line : rules.lines().toList()) {
            if (line.strip().startsWith("expr:")) {
                exprs.add(line.strip().substring("expr:".length()));
            }
        }
        assertThat(exprs).hasSameSizeAs(alerts());
        Set<String> documented = MetricsDoc.families();
        for (String expr : exprs) {
            assertThat(MetricsDoc.seriesIn(expr)).as(expr).isNotEmpty();
            assertThat(MetricsDoc.undocumented(MetricsDoc.seriesIn(expr), documented)).as(expr).isEmpty();
        }
    }

    private static List<String> alerts() throws Exception {
        Matcher m = ALERT.matcher(Files.readString(DIR.resolve("raftline-alerts.yml"), StandardCharsets.UTF_8));
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        assertThat(out).hasSizeGreaterThanOrEqualTo(10);
        return out;
    }
}
