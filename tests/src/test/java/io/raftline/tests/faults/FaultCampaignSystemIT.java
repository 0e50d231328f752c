package io.raftline.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The full fault campaign (issue 19, items 3 and 5), behind {@code ./raftline test --system}: every fault type on 5
 * network-namespace hosts, {@code raftline.campaign.seeds} runs each (default 5), one fault per run; then power losses
 * of one node and of every node at once, under {@code flush.messages=1} (nothing acknowledged may be lost) and under
 * the default flush policy (what it loses is measured, not failed). The table is written to
 * {@code target/verify/campaign/campaign.md} after every run. Replay one: {@code -Draftline.campaign.faults=NAME
 * -Draftline.campaign.seed=SEED -Draftline.campaign.seeds=1}.
 */
@Tag("system")
@Timeout(14_400)
class FaultCampaignSystemIT {

    private static final Path REPORTS = Path.of("target", "verify", "campaign");
    private static final List<String> HOST_FAULTS = List.of("kill-leader", "kill-follower", "kill-controller", "kill-coordinator",
        "kill-minority", "pause-leader", "partition-leader", "partition-client-leader", "partition-majority", "partition-ring",
        "partition-flapping", "restart-in-minority", "lossy-link", "lossy-leader-link", "full-disk", "clock-skew", "remove-add-voter",
        "replace-voter");
    private static final List<String> POWER_FAULTS = List.of("power-loss-one", "power-loss-all");

    @Test
    void theCampaign() throws Exception {
        Optional<String> missing = Hosts.missingPrerequisite();
        Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElse(""));
        long firstSeed = Long.getLong("raftline.campaign.seed", System.nanoTime());
        int seeds = Integer.getInteger("raftline.campaign.seeds", 5);
        String only = System.getProperty("raftline.campaign.faults", "");
        List<String> wanted = only.isBlank() ? null : Arrays.asList(only.split(","));
        SplittableRandom seeder = new SplittableRandom(firstSeed);
        System.out.println("FaultCampaignSystemIT first seed " + firstSeed + ", " + seeds + " seed(s) per fault");
        CampaignReport report = new CampaignReport(REPORTS.resolve("campaign.md"), "Fault campaign, first seed " + firstSeed);
        report.note("Hold 4-6 s per fault, 4 s of recovery after each heal; verify at 1,000 records/s, 2 topics x 3 partitions, "
            + "RF 3, min ISR 2, idempotent acks=all producers, 2 consumers in a group, and an acks=1 producer whose losses are "
            + "reported apart.");
        List<FaultRun.Outcome> mustBeSafe = new ArrayList<>();
        List<String> hostFaults = HOST_FAULTS.stream().filter(f -> wanted == null || wanted.contains(f)).toList();
        if (!hostFaults.isEmpty()) {
            try (CampaignCluster c = CampaignCluster.onHosts(REPORTS.resolve("hosts-work").toAbsolutePath(), Map.of())) {
                for (int s = 0; s < seeds; s++) {
                    for (String fault : hostFaults) {
                        long seed = seeds == 1 && Long.getLong("raftline.campaign.seed") != null ? firstSeed : seeder.nextLong();
                        FaultRun.Outcome o = FaultRun.run(c, fault + "-" + s, List.of(Faults.named(fault)), seed, Duration.ofSeconds(4),
                            Duration.ofSeconds(4), REPORTS, "--rate", "1000", "--acks1-producer");
                        report.add(o);
                        mustBeSafe.add(o);
                        System.out.println("campaign run " + o.name() + " seed " + seed + ": " + (o.safe() ? "ok" : o.anomalySummary())
                            + " " + o.windows());
                    }
                }
            }
        }
        for (String policy : List.of("flush1", "default-flush")) {
            List<String> powerFaults = POWER_FAULTS.stream().filter(f -> wanted == null || wanted.contains(f)).toList();
            if (powerFaults.isEmpty()) {
                continue;
            }
            Map<String, String> config = policy.equals("flush1") ? Map.of("log.flush.interval.messages", "1") : Map.of();
            try (CampaignCluster c = CampaignCluster.withPowerLoss(REPORTS.resolve(policy + "-work").toAbsolutePath(), config)) {
                for (int s = 0; s < Math.max(1, (seeds + 1) / 2); s++) {
                    for (String fault : powerFaults) {
                        long seed = seeder.nextLong();
                        FaultRun.Outcome o = FaultRun.run(c, fault + "-" + policy + "-" + s, List.of(Faults.named(fault)), seed,
                            Duration.ofSeconds(3), Duration.ofSeconds(4), REPORTS, "--rate", "1000");
                        report.add(o);
                        if (policy.equals("flush1") || fault.equals("power-loss-one")) {
                            mustBeSafe.add(o);
                        }
                        System.out.println("campaign run " + o.name() + " seed " + seed + ": " + (o.safe() ? "ok" : o.anomalySummary())
                            + " (dropped " + c.droppedBytes() + " unsynced bytes so far)");
                    }
                }
                report.note(policy + ": the power losses dropped " + c.droppedBytes() + " bytes that were written and not fsynced.");
            }
        }
        System.out.println(report.markdown());
        for (FaultRun.Outcome o : mustBeSafe) {
            assertThat(o.safeAndHealed()).as(o.name() + " (seed " + o.seed() + "): " + o.anomalySummary() + ", healed " + o.healed() + " " + o.detail() + "; report "
                + o.reportDir()).isTrue();
        }
    }
}
