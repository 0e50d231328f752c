package io.raftline.tests.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The campaign's table, rewritten to {@code campaign.md} after every run: one row per fault type (runs, anomalous runs,
 * worst unavailability, what the fault did) and one row per run with its seed, so any run can be replayed.
 */
final class CampaignReport {

    private final Path file;
    private final String title;
    private final List<String> preamble = new ArrayList<>();
    private final List<FaultRun.Outcome> outcomes = new ArrayList<>();

    CampaignReport(Path file, String title) {
        this.file = file;
        this.title = title;
    }

    synchronized void note(String line) {
        preamble.add(line);
        write();
    }

    synchronized void add(FaultRun.Outcome o) {
        outcomes.add(o);
        write();
    }

    synchronized List<FaultRun.Outcome> outcomes() {
        return List.copyOf(outcomes);
    }

    private static final class Row {
        int runs;
        int anomalous;
        int unhealed;
        long acked;
        long worstGapMs = -1;
        long worstPartitionGapMs = -1;
        long acks1Lost;
        int acks1Runs;
        int leaderChanges;
        int fencings;
        int isrShrinks;
        int quorumChanges;
    }

    synchronized String markdown() {
        StringBuilder md = new StringBuilder("# " + title + "\n\n");
        preamble.forEach(l -> md.append(l).append("\n\n"));
        Map<String, Row> rows = new LinkedHashMap<>();
        for (FaultRun.Outcome o : outcomes) {
            for (FaultRun.Window w : o.windows()) {
                Row r = rows.computeIfAbsent(w.fault(), k -> new Row());
                r.runs++;
                r.anomalous += o.safe() ? 0 : 1;
                r.unhealed += o.healed() ? 0 : 1;
                r.acked += o.windows().size() == 1 ? o.acked() : 0;
                r.worstGapMs = Math.max(r.worstGapMs, w.maxNoAckGapMs());
                r.worstPartitionGapMs = Math.max(r.worstPartitionGapMs, w.partitionGapMs());
                if (o.acks1Lost() >= 0 && o.windows().size() == 1) {
                    r.acks1Runs++;
                    r.acks1Lost += o.acks1Lost();
                }
                r.leaderChanges += w.effects().leaderChanges() > 0 ? 1 : 0;
                r.fencings += w.effects().maxFencedBrokers() > 0 ? 1 : 0;
                r.isrShrinks += w.effects().minIsr() >= 0 && w.effects().minIsr() < 3 ? 1 : 0;
                r.quorumChanges += w.effects().quorumLeaders().size() > 1 ? 1 : 0;
            }
        }
        md.append("| fault | runs | runs with an anomaly | runs not healed | worst unavailability of the measured partition (ms) | worst time without "
            + "any ack (ms) | acks=1 records lost | runs with a leader change | with a broker fenced | with an ISR shrink "
            + "| with a new quorum leader |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
        rows.forEach((fault, r) -> md.append("| ").append(fault).append(" | ").append(r.runs).append(" | ").append(r.anomalous)
            .append(" | ").append(r.unhealed).append(" | ").append(r.worstPartitionGapMs).append(" | ").append(r.worstGapMs).append(" | ")
            .append(r.acks1Runs == 0 ? "-" : Long.toString(r.acks1Lost)).append(" | ").append(r.leaderChanges).append(" | ").append(r.fencings).append(" | ")
            .append(r.isrShrinks).append(" | ").append(r.quorumChanges).append(" |\n"));
        md.append("\n## Runs\n\n| run | seed | verdict | acked | fault: target, partition / any-ack gap, effects |\n"
            + "|---|---|---|---|---|\n");
        for (FaultRun.Outcome o : outcomes) {
            StringBuilder faults = new StringBuilder();
            for (FaultRun.Window w : o.windows()) {
                if (!faults.isEmpty()) {
                    faults.append("; ");
                }
                faults.append(w.fault()).append(": ").append(w.target()).append(", ").append(w.partitionGapMs()).append(" / ")
                    .append(w.maxNoAckGapMs()).append(" ms, ")
                    .append(w.effects());
            }
            md.append("| ").append(o.name()).append(" | ").append(o.seed()).append(" | ")
                .append(o.safe() ? "ok" : "**" + o.anomalySummary() + " (exit " + o.exitCode() + ")**")
                .append(o.healed() ? "" : ", **not healed within verify's wait**")
                .append(o.detail().isBlank() ? "" : " " + o.detail().replace('|', '/').replace('\n', ' ')).append(" | ")
                .append(o.acked()).append(" | ").append(faults).append(" |\n");
        }
        return md.toString();
    }

    private void write() {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, markdown(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
