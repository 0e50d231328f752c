package io.raftline.cli.command.verify;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.cli.verify.Anomaly;
import io.raftline.cli.verify.FaultLog;
import io.raftline.cli.verify.Unavailability;
import io.raftline.cli.verify.Verdict;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The three renderings of a verdict: the JSON document of the CLI contract, the console table, and report.md (which links the plot). */
final class VerifyReport {

    private VerifyReport() {
    }

    static ObjectNode json(Verdict v, RunInfo info) {
        ObjectNode doc = Json.object()
            .put("run", info.run())
            .put("durationMs", info.durationMs())
            .put("acked", v.acked())
            .put("failedSends", v.failedSends())
            .put("read", v.read());
        ObjectNode anomalies = doc.putObject("anomalies");
        v.anomalies().forEach(a -> anomalies.put(a.name(), a.count()));
        doc.putObject("acks1").put("acked", v.acks1Acked()).put("lost", v.acks1Lost().count());
        ObjectNode unavailability = doc.putObject("unavailability").put("maxNoAckGapMs", v.availability().maxNoAckGapMs());
        ArrayNode windows = unavailability.putArray("windows");
        for (Unavailability.WindowGap w : v.availability().windows()) {
            ObjectNode o = windows.addObject().put("fault", w.window().fault()).put("target", w.window().target())
                .put("startMs", w.window().startMs());
            if (w.window().open()) {
                o.putNull("endMs");
            } else {
                o.put("endMs", w.window().endMs());
            }
            o.put("maxNoAckGapMs", w.maxNoAckGapMs());
        }
        ObjectNode examples = doc.putObject("examples");
        List<Anomaly> all = new ArrayList<>(v.anomalies());
        all.add(v.acks1Lost());
        for (Anomaly a : all) {
            if (!a.examples().isEmpty()) {
                ArrayNode list = examples.putArray(a.name());
                for (Anomaly.Example e : a.examples()) {
                    list.addObject().put("topic", e.topic()).put("partition", e.partition()).put("offset", e.offset())
                        .put("value", e.value()).put("detail", e.detail());
                }
            }
        }
        doc.put("healed", info.healed()).put("complete", info.complete());
        doc.put("report", info.reportFile().toString());
        return doc;
    }

    static void table(Verdict v, RunInfo info, PrintWriter out) {
        out.printf("Run %s: %.1f s of workload on %d topic(s) x %d partition(s), RF %d; %d acknowledged, %d failed sends, "
                + "%d read back.%n", info.run(), info.durationMs() / 1000.0, info.topics().size(), info.partitions(),
            info.replicationFactor(), v.acked(), v.failedSends(), v.read());
        Table checks = new Table("CHECK", "RESULT", "COUNT");
        for (Anomaly a : v.anomalies()) {
            checks.row(a.name(), a.found() ? "FAILED" : "ok", a.count());
        }
        checks.row("acks1Lost", "reported", v.acks1Lost().count() + " of " + v.acks1Acked());
        checks.print(out);
        out.println("Longest time without an acknowledgement: " + v.availability().maxNoAckGapMs() + " ms.");
        if (!v.availability().windows().isEmpty()) {
            Table faults = new Table("FAULT", "TARGET", "START", "END", "MAX-NO-ACK-MS");
            for (Unavailability.WindowGap w : v.availability().windows()) {
                faults.row(w.window().fault(), w.window().target(), seconds(w.startNs()), w.window().open() ? "open" : seconds(w.endNs()),
                    w.maxNoAckGapMs());
            }
            faults.print(out);
        }
        for (String note : info.notes()) {
            out.println("note: " + note);
        }
        out.println(verdictLine(v, info));
        out.println("Report: " + info.reportFile());
        out.flush();
    }

    static String verdictLine(Verdict v, RunInfo info) {
        if (!info.complete()) {
            return "Verdict: the run could not complete (" + info.problem() + ").";
        }
        if (!v.safe()) {
            return "Verdict: SAFETY ANOMALIES FOUND (" + summary(v) + ").";
        }
        return "Verdict: no safety anomaly found.";
    }

    /** The anomalies found, e.g. {@code lost 3, moved 1}. */
    static String summary(Verdict v) {
        List<String> parts = new ArrayList<>();
        v.anomalies().stream().filter(Anomaly::found).forEach(a -> parts.add(a.name() + " " + a.count()));
        return String.join(", ", parts);
    }

    static String markdown(Verdict v, RunInfo info, FaultLog faults, AckPlot.Result plot) {
        StringWriter text = new StringWriter();
        PrintWriter md = new PrintWriter(text);
        md.println("# raftline verify: run " + info.run());
        md.println();
        md.println(verdictLine(v, info).replace("Verdict: ", "**Verdict:** "));
        md.println();
        md.println("| | |");
        md.println("|---|---|");
        md.println("| started | " + Instant.ofEpochMilli(info.startWallMs()) + " |");
        md.println("| workload | " + info.durationMs() + " ms |");
        md.println("| topics | " + String.join(", ", info.topics()) + " |");
        md.println("| partitions per topic | " + info.partitions() + " |");
        md.println("| replication factor | " + info.replicationFactor() + " |");
        md.println("| min.insync.replicas | " + (info.minInsyncReplicas() < 0 ? "broker default" : info.minInsyncReplicas()) + " |");
        md.println("| brokers | " + info.brokers() + " |");
        md.println("| acknowledged (acks=all) | " + v.acked() + " |");
        md.println("| failed sends (acks=all) | " + v.failedSends() + " |");
        md.println("| read by the final reads | " + v.read() + " |");
        md.println("| acknowledged (acks=1) | " + v.acks1Acked() + " |");
        md.println("| healed after the workload | " + (info.healed() ? "yes, in " + info.healMs() + " ms" : "no, after " + info.healMs()
            + " ms") + " |");
        md.println();
        md.println("## Verdict per anomaly");
        md.println();
        md.println("| anomaly | verdict | count |");
        md.println("|---|---|---|");
        for (Anomaly a : v.anomalies()) {
            md.println("| " + a.name() + " | " + (a.found() ? "**FAILED**" : "ok") + " | " + a.count() + " |");
        }
        md.println("| acks1Lost (reported, never a failure) | " + (v.acks1Lost().found() ? "records lost" : "none lost") + " | "
            + v.acks1Lost().count() + " of " + v.acks1Acked() + " |");
        md.println();
        List<Anomaly> withExamples = new ArrayList<>(v.anomalies());
        withExamples.add(v.acks1Lost());
        for (Anomaly a : withExamples) {
            if (a.examples().isEmpty()) {
                continue;
            }
            md.println("### " + a.name() + " (first " + a.examples().size() + " of " + a.count() + ")");
            md.println();
            md.println("| topic | partition | offset | value | what was seen |");
            md.println("|---|---|---|---|---|");
            for (Anomaly.Example e : a.examples()) {
                md.println("| " + e.topic() + " | " + e.partition() + " | " + e.offset() + " | " + (e.value() == null ? "" : e.value())
                    + " | " + e.detail() + " |");
            }
            md.println();
        }
        if (!v.failedSendErrors().isEmpty()) {
            md.println("## Failed sends by error");
            md.println();
            md.println("Numbers in the errors are written #.");
            md.println();
            md.println("| error | sends |");
            md.println("|---|---|");
            v.failedSendErrors().forEach((error, n) -> md.println("| " + error.replace("|", "\\|") + " | " + n + " |"));
            md.println();
        }
        md.println("## Unavailability");
        md.println();
        md.println("Longest time without any acknowledgement (acks=all): " + v.availability().maxNoAckGapMs() + " ms, from t="
            + seconds(v.availability().gapStartNs()) + " s.");
        md.println();
        md.println("## Acknowledged records per second");
        md.println();
        if (plot.isDrawn()) {
            md.println("![Acknowledged records per second, fault windows shaded](" + plot.file() + ")");
        } else {
            md.println("The plot of acknowledged records per second could not be drawn (" + plot.problem()
                + "); the verdict does not depend on it.");
        }
        md.println();
        md.println("## Fault timeline");
        md.println();
        if (v.availability().windows().isEmpty()) {
            md.println("No faults were logged" + (faults.warnings().isEmpty() ? "." : " (see the notes)."));
        } else {
            md.println("Times in seconds since the run started.");
            md.println();
            md.println("| fault | target | start (s) | end (s) | longest gap without acks (ms) |");
            md.println("|---|---|---|---|---|");
            for (Unavailability.WindowGap w : v.availability().windows()) {
                md.println("| " + w.window().fault() + " | " + (w.window().target() == null ? "" : w.window().target()) + " | "
                    + seconds(w.startNs()) + " | " + (w.window().open() ? "never ended" : seconds(w.endNs())) + " | "
                    + w.maxNoAckGapMs() + " |");
            }
        }
        md.println();
        if (!info.notes().isEmpty()) {
            md.println("## Notes");
            md.println();
            info.notes().forEach(n -> md.println("- " + n));
            md.println();
        }
        md.println("After the final reads, the replicas of each partition were compared (CRC32C over the offsets all of them hold");
        md.println("below their high watermarks): a disagreement counts in inconsistentOffsets, and a replica that could not be");
        md.println("compared is in the notes.");
        md.flush();
        return text.toString();
    }

    private static String seconds(long historyNs) {
        return String.format("%.1f", historyNs / 1e9);
    }
}
