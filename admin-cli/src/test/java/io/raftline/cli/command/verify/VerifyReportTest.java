package io.raftline.cli.command.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.cli.RaftlineCli;
import io.raftline.cli.verify.Checker;
import io.raftline.cli.verify.Event;
import io.raftline.cli.verify.FaultLog;
import io.raftline.cli.verify.History;
import io.raftline.cli.verify.Verdict;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JSON document, the console table and report.md of a verdict, from a hand-made history; and the flags' parsing. */
class VerifyReportTest {

    private static final long START_MS = 1_700_000_000_000L;
    private static final String T = "verify-r1-0";

    /** Two acks=all records, one of them lost; one acks=1 record lost; a kill-leader window. */
    private static History history() {
        List<Event> e = new ArrayList<>();
        e.add(new Event.Phase(Event.Phase.WORKLOAD_START, 0));
        e.add(new Event.Send("p0", Event.Acks.ALL, T, "p0-0", 0, 100_000_000L, 0, 0, null));
        e.add(new Event.Send("p0", Event.Acks.ALL, T, "p0-1", 0, 1_300_000_000L, 0, 1, null));
        e.add(new Event.Send("acks1", Event.Acks.ONE, T, "acks1-0", 0, 200_000_000L, 0, 2, null));
        e.add(new Event.Send("p0", Event.Acks.ALL, T, "p0-2", 0, 1_400_000_000L, -1, -1, "OUT_OF_ORDER|1"));
        e.add(new Event.Phase(Event.Phase.WORKLOAD_END, 2_000_000_000L));
        e.add(new Event.Poll("final-reader", true, 0, T, 0, 0, "p0-0", 2_500_000_000L));
        return History.of("r1", START_MS, e);
    }

    private static FaultLog faults() {
        return FaultLog.parse(List.of((START_MS + 500) + " start kill-leader 2", (START_MS + 1500) + " end kill-leader 2"));
    }

    private static RunInfo info(boolean complete) {
        return new RunInfo("r1", START_MS, 2000, List.of(T), 1, 3, 2, 3, true, 1234,
            complete ? null : "the final reads stopped short", List.of("a note"),
            Path.of("out", "r1"));
    }

    private static List<String> fields(JsonNode node) {
        List<String> names = new ArrayList<>();
        Iterator<String> it = node.fieldNames();
        it.forEachRemaining(names::add);
        return names;
    }

    @Test
    void theJsonDocumentHasTheContractsFieldsAndCounts() throws Exception {
        Verdict v = Checker.check(history(), faults());
        JsonNode doc = new ObjectMapper().readTree(VerifyReport.json(v, info(true)).toString());
        assertThat(fields(doc)).containsExactly("run", "durationMs", "acked", "failedSends", "read", "anomalies", "acks1",
            "unavailability", "examples", "healed", "complete", "report");
        assertThat(doc.get("run").asText()).isEqualTo("r1");
        assertThat(doc.get("acked").asLong()).isEqualTo(2);
        assertThat(doc.get("read").asLong()).isEqualTo(1);
        assertThat(doc.get("anomalies").get("lost").asLong()).isEqualTo(1);
        assertThat(doc.get("anomalies").get("moved").asLong()).isZero();
        assertThat(doc.get("acks1").get("acked").asLong()).isEqualTo(1);
        assertThat(doc.get("acks1").get("lost").asLong()).isEqualTo(1);
        // acks at 0.1 s and 1.3 s: the kill-leader window [0.5, 1.5) s overlaps the 1.2 s gap, then 0.7 s to the end
        assertThat(doc.get("unavailability").get("maxNoAckGapMs").asLong()).isEqualTo(1200);
        JsonNode w = doc.get("unavailability").get("windows").get(0);
        assertThat(fields(w)).containsExactly("fault", "target", "startMs", "endMs", "maxNoAckGapMs");
        assertThat(w.get("fault").asText()).isEqualTo("kill-leader");
        assertThat(w.get("target").asText()).isEqualTo("2");
        assertThat(w.get("startMs").asLong()).isEqualTo(START_MS + 500);
        assertThat(w.get("maxNoAckGapMs").asLong()).isEqualTo(1200);
        JsonNode lost = doc.get("examples").get("lost").get(0);
        assertThat(fields(lost)).startsWith("topic", "partition", "offset", "value");
        assertThat(lost.get("value").asText()).isEqualTo("p0-1");
        assertThat(lost.get("offset").asLong()).isEqualTo(1);
        assertThat(doc.get("examples").get("acks1Lost").get(0).get("value").asText()).isEqualTo("acks1-0");
        assertThat(doc.get("report").asText()).isEqualTo(Path.of("out", "r1", "report.md").toString());
    }

    @Test
    void theTableShowsEachCheckTheFaultsAndTheVerdict() {
        Verdict v = Checker.check(history(), faults());
        StringWriter text = new StringWriter();
        VerifyReport.table(v, info(true), new PrintWriter(text));
        String out = text.toString();
        assertThat(out).contains("lost                       FAILED    1")
            .contains("acks1Lost                  reported  1 of 1")
            .contains("kill-leader  2       0.5    1.5  1200")
            .contains("Verdict: SAFETY ANOMALIES FOUND (lost 1).")
            .contains("note: a note");
        StringWriter incomplete = new StringWriter();
        VerifyReport.table(v, info(false), new PrintWriter(incomplete));
        assertThat(incomplete.toString()).contains("Verdict: the run could not complete (the final reads stopped short).");
    }

    @Test
    void theMarkdownReportHasTheVerdictPerAnomalyExamplesAndTheFaultTimeline() {
        Verdict v = Checker.check(history(), faults());
        String md = VerifyReport.markdown(v, info(true), faults(), AckPlot.Result.drawn("acks.png"));
        assertThat(md).startsWith("# raftline verify: run r1")
            .contains("**Verdict:** SAFETY ANOMALIES FOUND (lost 1).")
            .contains("| lost | **FAILED** | 1 |")
            .contains("| moved | ok | 0 |")
            .contains("### lost (first 1 of 1)")
            .contains("| " + T + " | 0 | 1 | p0-1 |")
            .contains("| kill-leader | 2 | 0.5 | 1.5 | 1200 |")
            .contains("- a note")
            .contains("## Failed sends by error")
            .contains("| OUT_OF_ORDER\\|# | 1 |")
            .contains("After the final reads, the replicas of each partition were compared")
            .doesNotContain("Not checked yet");
    }

    @Test
    void theMarkdownReportLinksThePlotOrSaysInOneLineWhyThereIsNone() {
        Verdict v = Checker.check(history(), faults());
        String md = VerifyReport.markdown(v, info(true), faults(), AckPlot.Result.drawn("acks.png"));
        assertThat(md.lines().filter(l -> l.startsWith("![")).toList())
            .containsExactly("![Acknowledged records per second, fault windows shaded](acks.png)");
        String without = VerifyReport.markdown(v, info(true), faults(), AckPlot.Result.failed("Error: No fonts found."));
        assertThat(without).doesNotContain("![").contains("**Verdict:** SAFETY ANOMALIES FOUND (lost 1).");
        assertThat(without.lines().filter(l -> l.contains("could not be drawn")).toList()).containsExactly(
            "The plot of acknowledged records per second could not be drawn (Error: No fonts found.); the verdict does not depend on it.");
    }

    @Test
    void theProgressLineHasSentAcknowledgedTheFaultOpenNowAndTheTimeLeft() {
        assertThat(VerifyCommand.progressLine(5_000_300_000L, 10_000_000_000L, 10_000, 9_990, 1998.4, 2, 9_000, "kill-leader 2"))
            .isEqualTo("[5/10 s] sent 10000, acknowledged 9990 (1998/s), failed 2, consumed 9000; fault: kill-leader 2; 5 s remaining");
        // elapsed rounds down, remaining up: they add up to the duration
        assertThat(VerifyCommand.progressLine(9_999_000_000L, 10_000_000_000L, 1, 1, 0, 0, 0, "none"))
            .startsWith("[9/10 s] sent 1,").endsWith("fault: none; 1 s remaining");
        assertThat(VerifyCommand.progressLine(11_000_000_000L, 10_000_000_000L, 1, 1, 0, 0, 0, "none")).endsWith("; 0 s remaining");

        FaultLog log = FaultLog.parse(List.of((START_MS + 1000) + " start kill-leader 2", (START_MS + 3000) + " end kill-leader 2",
            (START_MS + 2000) + " start partition 3"));
        assertThat(VerifyCommand.faultsNow(log, START_MS + 500)).isEqualTo("none");
        assertThat(VerifyCommand.faultsNow(log, START_MS + 1000)).isEqualTo("kill-leader 2");
        assertThat(VerifyCommand.faultsNow(log, START_MS + 2500)).isEqualTo("kill-leader 2, partition 3");
        assertThat(VerifyCommand.faultsNow(log, START_MS + 3000)).as("an end closes the window").isEqualTo("partition 3");
        assertThat(VerifyCommand.faultsNow(FaultLog.EMPTY, START_MS)).isEqualTo("none");
    }

    @Test
    void aFaultLogThatIsADirectoryIsExit2BeforeAnythingIsCreated(@TempDir Path dir) {
        StringWriter err = new StringWriter();
        int code = RaftlineCli.run(new String[] {"verify", "--fault-log", dir.toString(), "--bootstrap-server", "127.0.0.1:1"},
            new PrintWriter(new StringWriter()), new PrintWriter(err, true));
        assertThat(code).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).contains("--fault-log " + dir + " is a directory");
    }

    @Test
    void aDurationThatDoesNotParseIsExit2() {
        StringWriter err = new StringWriter();
        int code = RaftlineCli.run(new String[] {"verify", "--duration", "soon"}, new PrintWriter(new StringWriter()),
            new PrintWriter(err, true));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("'soon' is not a duration");
        assertThat(new DurationConverter().convert("90")).hasSeconds(90);
        assertThat(new DurationConverter().convert("1500ms")).hasMillis(1500);
        assertThat(new DurationConverter().convert("2m")).hasMinutes(2);
    }
}
