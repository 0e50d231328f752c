package io.raftline.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a failed run adds to its test's message: the report's anomaly examples and failed-send errors, nothing else. */
class FaultRunEvidenceTest {

    @Test
    void theExamplesAndTheFailedSendsOfTheReportAreKeptLineByLine() {
        String report = String.join("\n",
            "# raftline verify: run r1",
            "| acknowledged (acks=all) | 10 |",
            "## Verdict per anomaly",
            "| anomaly | verdict | count |",
            "| moved | **FAILED** | 1 |",
            "### moved (first 1 of 1)",
            "| topic | partition | offset | value | what was seen |",
            "|---|---|---|---|---|",
            "| t | 0 | 5 | p0-7 | acknowledged at t-0@5, read at [t-0@4] |",
            "## Failed sends by error",
            "| error | sends |",
            "|---|---|",
            "| INVALID_RECORD | 2 |",
            "## Unavailability",
            "| kill-leader | 1 | 2.6 | 23.9 | 49 |");
        assertThat(FaultRun.evidence(report)).isEqualTo("\n### moved (first 1 of 1)"
            + "\n  | t | 0 | 5 | p0-7 | acknowledged at t-0@5, read at [t-0@4] |"
            + "\n## Failed sends by error"
            + "\n  | INVALID_RECORD | 2 |");
        assertThat(FaultRun.evidence("")).isEmpty();
    }
}
