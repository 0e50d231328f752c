package io.raftline.tests.faults;

import com.fasterxml.jackson.databind.JsonNode;
import io.raftline.cli.verify.Event;
import io.raftline.cli.verify.FaultLog;
import io.raftline.cli.verify.History;
import io.raftline.cli.verify.Unavailability;
import io.raftline.client.admin.BrokerDescription;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.common.SystemTime;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One run of the campaign: {@code raftline verify} (in-process, against the campaign's cluster) for long enough to hold
 * the run's faults one after another, each injected once the workload is writing, held for its seeded time, healed, and
 * followed by a recovery gap. Every fault edge goes to the fault log that verify reads, so its verdict reports the
 * unavailability per fault window; while each fault lasts, the cluster's own metadata is sampled to show that the fault
 * took effect (leader changes, fenced brokers, ISR shrinks, a new quorum leader).
 */
final class FaultRun {

    /** What the metadata showed while one fault lasted (and 2 s after its heal). */
    record Effects(int leaderChanges, int minIsr, int maxFencedBrokers, TreeSet<Integer> quorumLeaders) {
        @Override
        public String toString() {
            return leaderChanges + " leader change(s), ISR down to " + minIsr + ", " + maxFencedBrokers + " broker(s) fenced, quorum leader(s) "
                + quorumLeaders;
        }
    }

    /**
     * One fault of the run: what it hit, its edges (epoch ms), its effects, verify's longest gap without any
     * acknowledgement in its window ({@code maxNoAckGapMs}, over every partition) and the same for partition 0 of the
     * first topic alone ({@code partitionGapMs}), the partition whose leader the leader faults hit.
     */
    record Window(String fault, String target, long startMs, long endMs, Effects effects, long maxNoAckGapMs, long partitionGapMs) {
    }

    /** The run's result: verify's exit code and JSON verdict, the fault windows, where the report is. */
    record Outcome(String name, long seed, int exitCode, JsonNode verdict, boolean healed, List<Window> windows, Path reportDir,
                   String detail) {

        long anomalies() {
            if (verdict == null) {
                return -1;
            }
            long sum = 0;
            var it = verdict.get("anomalies").fields();
            while (it.hasNext()) {
                sum += it.next().getValue().asLong();
            }
            return sum;
        }

        long acked() {
            return verdict == null ? 0 : verdict.get("acked").asLong();
        }

        String anomalySummary() {
            if (verdict == null) {
                return "no verdict";
            }
            List<String> parts = new ArrayList<>();
            verdict.get("anomalies").fields().forEachRemaining(e -> {
                if (e.getValue().asLong() > 0) {
                    parts.add(e.getKey() + " " + e.getValue().asLong());
                }
            });
            return parts.isEmpty() ? "none" : String.join(", ", parts);
        }

        /** acks=1 records acknowledged and lost (reported, never a failure), or -1 without that producer. */
        long acks1Lost() {
            return verdict == null || verdict.get("acks1").get("acked").asLong() == 0 ? -1 : verdict.get("acks1").get("lost").asLong();
        }

        boolean safe() {
            return exitCode == 0 && anomalies() == 0;
        }

        /** Safe, and every partition had a leader and a full ISR again within verify's heal wait after the fault. */
        boolean safeAndHealed() {
            return safe() && healed;
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    private FaultRun() {
    }

    /**
     * Runs verify with {@code faults} in turn. {@code hold} is each fault's base length (the seeded random adds up to
     * half of it again), {@code gap} the recovery time after each heal, {@code verifyArgs} extra verify options.
     */
    static Outcome run(CampaignCluster campaign, String name, List<Fault> faults, long seed, Duration hold, Duration gap,
        Path reportRoot, String... verifyArgs) throws Exception {
        return run(campaign, name, faults, seed, hold, gap, 1.0, reportRoot, verifyArgs);
    }

    /** As above, with each fault's {@link Fault#healAllowance()} scaled by {@code healScale} (a short run takes less). */
    static Outcome run(CampaignCluster campaign, String name, List<Fault> faults, long seed, Duration hold, Duration gap,
        double healScale, Path reportRoot, String... verifyArgs) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        TestCluster cluster = campaign.cluster();
        Path dir = reportRoot.resolve(name);
        Files.createDirectories(dir);
        Path faultLog = dir.resolve("faults.log");
        Files.deleteIfExists(faultLog);
        List<Long> holds = new ArrayList<>();
        // the workload lasts for the faults and their heals: a lead-in, then each fault's hold, gap and a heal allowance
        long plannedMs = 5_000;
        for (int i = 0; i < faults.size(); i++) {
            long h = Math.max(faults.get(i).minHold().toMillis(), hold.toMillis() + random.nextLong(hold.toMillis() / 2 + 1));
            holds.add(h);
            plannedMs += h + gap.toMillis() + (long) (faults.get(i).healAllowance().toMillis() * healScale);
        }
        // and a fifth more: a loaded machine restarts nodes slower than the allowances say (the full suite's short
        // campaign once took 20 s to restart a killed leader, and the workload ended before the last heal); a
        // workload that outlasts the schedule only gives the cluster more time to recover before the final reads
        plannedMs += plannedMs / 5;
        List<String> args = new ArrayList<>(List.of("verify", "--duration", plannedMs + "ms", "--output", "json", "--report-dir",
            dir.toString(), "--fault-log", faultLog.toString(), "--write-history"));
        args.addAll(List.of(verifyArgs));
        Cli cli = new Cli(cluster.bootstrap());
        CompletableFuture<Cli.Result> verify = CompletableFuture.supplyAsync(() -> cli.run(args.toArray(String[]::new)));
        List<Window> windows = new ArrayList<>();
        String[] measured = {null};
        StringBuilder detail = new StringBuilder();
        try {
            String topic = awaitTopic(cluster, verify);
            measured[0] = topic;
            String group = "verify-" + topic.substring("verify-".length(), topic.lastIndexOf('-'));
            awaitRecords(cluster, topic, 200);
            FaultTarget target = new FaultTarget(campaign, topic, group, random);
            for (int i = 0; i < faults.size(); i++) {
                Fault fault = faults.get(i);
                Probe probe = new Probe(cluster, topic);
                probe.start();
                long start = SystemTime.INSTANCE.milliseconds();
                Fault.Injected injected = fault.inject(target);
                log(faultLog, start + " start " + fault.name() + " " + injected.target());
                TimeUnit.MILLISECONDS.sleep(holds.get(i));
                injected.heal().heal();
                long end = SystemTime.INSTANCE.milliseconds();
                log(faultLog, end + " end " + fault.name() + " " + injected.target());
                TimeUnit.MILLISECONDS.sleep(2_000);
                Effects effects = probe.finish();
                windows.add(new Window(fault.name(), injected.target(), start, end, effects, -1, -1));
                TimeUnit.MILLISECONDS.sleep(Math.max(0, gap.toMillis() - 2_000));
            }
            if (verify.isDone()) {
                detail.append("the workload ended before the last fault was healed; ");
            }
        } catch (Exception | AssertionError e) {
            detail.append("fault schedule failed: ").append(e).append("; ");
        }
        Cli.Result r = verify.get(plannedMs + 420_000, TimeUnit.MILLISECONDS);
        JsonNode doc = null;
        try {
            // exit 1 (an anomaly) still prints the verdict
            doc = r.outLines().size() == 1 ? JSON.readTree(r.out()) : null;
        } catch (java.io.IOException e) {
            doc = null;
        }
        if (doc == null || !doc.has("anomalies")) {
            doc = null;
            detail.append("no JSON verdict: ").append(r);
        }
        Path reportFile = dir.resolve("report.md");
        String report = Files.exists(reportFile) ? Files.readString(reportFile, StandardCharsets.UTF_8) : "";
        boolean healed = report.contains("| healed after the workload | yes");
        if (doc != null) {
            Map<String, Long> gaps = new HashMap<>();
            for (JsonNode w : doc.get("unavailability").get("windows")) {
                gaps.put(w.get("fault").asText() + " " + w.get("target").asText() + " " + w.get("startMs").asLong(),
                    w.get("maxNoAckGapMs").asLong());
            }
            Map<String, Long> partitionGaps = measured[0] == null ? Map.of() : partitionGaps(dir, faultLog, measured[0]);
            List<Window> withGaps = new ArrayList<>();
            for (Window w : windows) {
                String key = w.fault() + " " + w.target() + " " + w.startMs();
                withGaps.add(new Window(w.fault(), w.target(), w.startMs(), w.endMs(), w.effects(), gaps.getOrDefault(key, -1L),
                    partitionGaps.getOrDefault(key, -1L)));
            }
            windows = withGaps;
            if (r.exitCode() != 0) {
                detail.append(r.err().lines().filter(l -> l.startsWith("error")).findFirst().orElse(""));
                detail.append(evidence(report));
            }
        }
        return new Outcome(name, seed, r.exitCode(), doc, healed, windows, dir, detail.toString());
    }

    /**
     * Verify's own unavailability check ({@link Unavailability}) over the acknowledgements of partition 0 of
     * {@code topic} alone: per fault window, the longest time that one partition went without an acknowledgement.
     * Reads the history verify wrote (and deletes it: it is large and the report has the verdict).
     */
    private static Map<String, Long> partitionGaps(Path dir, Path faultLog, String topic) throws java.io.IOException {
        Path file = dir.resolve("history.jsonl");
        if (!Files.exists(file)) {
            return Map.of();
        }
        History all = History.read(file);
        List<Event> only = all.events().stream()
            .filter(e -> !(e instanceof Event.Send s) || (s.topic().equals(topic) && s.partition() == 0)).toList();
        Unavailability.Report report = Unavailability.check(History.of(all.run(), all.startWallMs(), only), FaultLog.read(faultLog));
        Map<String, Long> out = new HashMap<>();
        for (Unavailability.WindowGap g : report.windows()) {
            out.put(g.window().fault() + " " + g.window().target() + " " + g.window().startMs(), g.maxNoAckGapMs());
        }
        Files.delete(file);
        return out;
    }

    private static String awaitTopic(TestCluster cluster, CompletableFuture<Cli.Result> verify) {
        String[] topic = {null};
        TestCluster.await(() -> {
            if (verify.isDone()) {
                throw new AssertionError("verify ended before its topics existed: " + verify.join());
            }
            try {
                topic[0] = cluster.admin().listTopics().names().get(10, TimeUnit.SECONDS).stream().filter(t -> t.startsWith("verify-"))
                    .sorted().findFirst().orElse(null);
            } catch (Exception e) {
                topic[0] = null;
            }
            return topic[0] != null;
        }, Duration.ofSeconds(90), "verify to create its topics");
        return topic[0];
    }

    /** Waits until partition 0 of the topic holds {@code count} records: the workload is writing. */
    private static void awaitRecords(TestCluster cluster, String topic, long count) {
        TopicPartition tp0 = new TopicPartition(topic, 0);
        try (RaftlineConsumer<String, String> probe = new RaftlineConsumer<>(cluster.clientProperties(), new StringDeserializer(),
            new StringDeserializer())) {
            TestCluster.await(() -> {
                try {
                    return probe.endOffsets(List.of(tp0)).get(tp0) >= count;
                } catch (RuntimeException e) {
                    return false;
                }
            }, Duration.ofSeconds(90), "the workload to write " + count + " records to " + tp0);
        }
    }

    private static void log(Path faultLog, String line) throws Exception {
        Files.writeString(faultLog, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** Samples the metadata every 250 ms on its own thread while a fault lasts. */
    private static final class Probe extends Thread {
        private final TestCluster cluster;
        private final String topic;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Map<Integer, Integer> firstEpoch = new HashMap<>();
        private final Map<Integer, Integer> lastEpoch = new HashMap<>();
        private int minIsr = Integer.MAX_VALUE;
        private int maxFenced;
        private final TreeSet<Integer> quorumLeaders = new TreeSet<>();

        Probe(TestCluster cluster, String topic) {
            super("fault-probe");
            setDaemon(true);
            this.cluster = cluster;
            this.topic = topic;
            sample();
        }

        @Override
        public void run() {
            while (!stop.get()) {
                sample();
                try {
                    TimeUnit.MILLISECONDS.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private synchronized void sample() {
            try {
                List<TopicPartitionInfo> parts = cluster.admin().describeTopics(List.of(topic)).allTopicNames().get(2, TimeUnit.SECONDS)
                    .get(topic).partitions();
                for (TopicPartitionInfo p : parts) {
                    firstEpoch.putIfAbsent(p.partition(), p.leaderEpoch());
                    lastEpoch.merge(p.partition(), p.leaderEpoch(), Math::max);
                    minIsr = Math.min(minIsr, p.isr().size());
                }
            } catch (Exception e) {
                // unreachable during the fault: the next sample may see it
            }
            try {
                List<BrokerDescription> brokers = cluster.admin().describeBrokers().get(2, TimeUnit.SECONDS);
                maxFenced = Math.max(maxFenced, (int) brokers.stream().filter(b -> !b.state().equals("active")).count()
                    + Math.max(0, cluster.nodes().size() - brokers.size()));
            } catch (Exception e) {
                // as above
            }
            try {
                quorumLeaders.add(cluster.admin().describeMetadataQuorum().quorumInfo().get(2, TimeUnit.SECONDS).leaderId());
            } catch (Exception e) {
                // as above
            }
        }

        Effects finish() throws InterruptedException {
            stop.set(true);
            interrupt();
            join(5_000);
            sample();
            return effects();
        }

        private synchronized Effects effects() {
            int changes = 0;
            for (var e : lastEpoch.entrySet()) {
                changes += e.getValue() - firstEpoch.getOrDefault(e.getKey(), e.getValue());
            }
            return new Effects(changes, minIsr == Integer.MAX_VALUE ? -1 : minIsr, maxFenced, quorumLeaders);
        }
    }

    /**
     * The report's anomaly examples and failed-send errors, on one line each, so that a failed run explains itself in
     * the test's message (a CI log keeps that, not the report).
     */
    static String evidence(String report) {
        StringBuilder out = new StringBuilder();
        boolean inSection = false;
        for (String line : report.lines().toList()) {
            if (line.startsWith("#")) {
                inSection = line.startsWith("### ") || line.startsWith("## Failed sends");
                if (inSection) {
                    out.append("\n").append(line);
                }
            } else if (inSection && line.startsWith("| ") && !line.startsWith("| topic |") && !line.startsWith("| error |")) {
                out.append("\n  ").append(line);
            }
        }
        return out.toString();
    }
}
