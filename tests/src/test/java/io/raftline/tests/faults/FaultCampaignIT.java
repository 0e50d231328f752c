package io.raftline.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short fault campaign of the default suite (issue 19, item 5): one fault of every family, each in its own window
 * of one {@code raftline verify} run on 5 network-namespace hosts (kill -9 of a leader, SIGSTOP of a leader, a leader
 * cut off from the other nodes, a restart inside a minority, a lossy narrow link, a full disk, clock jumps, a voter
 * removed and added back), then power losses of one node and of all nodes at once on a cluster whose disks drop
 * unsynced writes, with {@code flush.messages=1}. Every run must find no anomaly, and the faults that must move
 * leadership must have moved it. The full campaign is {@link FaultCampaignSystemIT}.
 */
@Timeout(900)
class FaultCampaignIT {

    private static final Path REPORTS = Path.of("target", "verify", "campaign-short");

    @Test
    void oneFaultOfEveryFamilyLosesNothing() throws Exception {
        Optional<String> missing = Hosts.missingPrerequisite();
        Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElse(""));
        long seed = Long.getLong("raftline.campaign.seed", System.nanoTime());
        System.out.println("FaultCampaignIT seed " + seed + " (replay: -Draftline.campaign.seed=" + seed + ")");
        CampaignReport report = new CampaignReport(REPORTS.resolve("campaign.md"), "Short fault campaign, seed " + seed);
        List<String> faults = List.of("kill-leader", "pause-leader", "partition-leader", "restart-in-minority", "lossy-leader-link",
            "full-disk", "clock-skew", "remove-add-voter");
        FaultRun.Outcome hosts;
        try (CampaignCluster c = CampaignCluster.onHosts(REPORTS.resolve("hosts-work").toAbsolutePath(), Map.of())) {
            // heal allowances scaled to 0.45 (9 s for a restart): the run stays within the default suite's 3 minutes,
            // and the workload's margin (FaultRun) covers a slower restart
            hosts = FaultRun.run(c, "every-family", faults.stream().map(Faults::named).toList(), seed, Duration.ofSeconds(2),
                Duration.ofSeconds(2), 0.45, REPORTS, "--rate", "1000");
        }
        report.add(hosts);
        FaultRun.Outcome power;
        try (CampaignCluster c = CampaignCluster.withPowerLoss(REPORTS.resolve("power-work").toAbsolutePath(),
            Map.of("log.flush.interval.messages", "1"))) {
            power = FaultRun.run(c, "power-loss-flush1", List.of(Faults.named("power-loss-one"), Faults.named("power-loss-all")),
                seed, Duration.ofSeconds(1), Duration.ofSeconds(2), 0.45, REPORTS, "--rate", "1000");
        }
        report.add(power);
        System.out.println(report.markdown());
        for (FaultRun.Outcome o : List.of(hosts, power)) {
            assertThat(o.detail()).as(o.name() + " (seed " + seed + ")").isEmpty();
            assertThat(o.safeAndHealed()).as(o.name() + ": " + o.anomalySummary() + ", healed " + o.healed() + " (seed " + seed + "; report " + o.reportDir() + ")").isTrue();
            assertThat(o.acked()).as(o.name()).isPositive();
        }
        assertThat(hosts.windows()).extracting(FaultRun.Window::fault).containsExactlyElementsOf(faults);
        assertThat(power.windows()).extracting(FaultRun.Window::fault).containsExactly("power-loss-one", "power-loss-all");
        for (FaultRun.Window w : hosts.windows()) {
            assertThat(w.maxNoAckGapMs()).as("verify reported the window of " + w.fault()).isGreaterThanOrEqualTo(0);
            assertThat(w.partitionGapMs()).as("the measured partition's gap in the window of " + w.fault()).isGreaterThanOrEqualTo(0);
            if (List.of("kill-leader", "pause-leader", "partition-leader").contains(w.fault())) {
                assertThat(w.effects().leaderChanges()).as(w.fault() + " moved the leadership: " + w.effects()).isPositive();
            }
            if (w.fault().equals("partition-leader")) {
                // the cut-off leader refuses writes once the controller and its followers fall silent, and its clients
                // find the new leader while the cut lasts (before, they waited for the heal or their request timeout)
                assertThat(w.partitionGapMs()).as("acks=all writes to the cut-off leader's partition resumed before the cut "
                    + "healed (" + (w.endMs() - w.startMs()) + " ms)").isLessThan(w.endMs() - w.startMs());
            }
        }
    }
}
