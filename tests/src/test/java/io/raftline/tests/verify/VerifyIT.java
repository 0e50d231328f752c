package io.raftline.tests.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.common.SystemTime;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.awt.image.BufferedImage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code raftline verify} against one real 3-node cluster (node processes; the CLI in-process): a healthy run finds no
 * anomaly and prints the JSON document of the CLI contract; a run during which the test kills -9 a partition leader
 * (and restarts it), logging the fault as a fault injector would, still finds no anomaly and reports the
 * unavailability of that fault's window.
 */
@Timeout(300)
class VerifyIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> ANOMALIES = List.of("lost", "moved", "duplicate", "inconsistentOffsets", "nonMonotonicPoll",
        "skip", "committedOffsetRegression");
    private static TestCluster cluster;
    private static Cli cli;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).config("replica.lag.time.max.ms", "3000").start();
        cli = new Cli(cluster.bootstrap());
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static List<String> fields(JsonNode node) {
        List<String> names = new ArrayList<>();
        Iterator<String> it = node.fieldNames();
        it.forEachRemaining(names::add);
        return names;
    }

    private static JsonNode document(Cli.Result r) throws Exception {
        assertThat(r.outLines()).as("one JSON document on one line: " + r).hasSize(1);
        return JSON.readTree(r.out());
    }

    private static void assertNoAnomaly(JsonNode doc, Cli.Result r) {
        for (String a : ANOMALIES) {
            assertThat(doc.get("anomalies").get(a).asLong()).as(a + " in " + r).isZero();
        }
    }

    @Test
    void aHealthyClusterPassesAndTheJsonHasTheContractsShape() throws Exception {
        Cli.Result r = cli.run("verify", "--duration", "6s", "--output", "json");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        JsonNode doc = document(r);
        assertThat(fields(doc)).startsWith("run", "durationMs", "acked", "failedSends", "read", "anomalies", "acks1", "unavailability",
            "examples").contains("report");
        assertThat(fields(doc.get("anomalies"))).containsExactlyElementsOf(ANOMALIES);
        assertNoAnomaly(doc, r);
        assertThat(doc.get("durationMs").asLong()).isBetween(6_000L, 8_000L);
        // 2,000 records/s by default; a loaded 2-core machine may fall behind, but not to nothing
        assertThat(doc.get("acked").asLong()).as(r.toString()).isGreaterThan(3_000);
        assertThat(doc.get("read").asLong()).isGreaterThanOrEqualTo(doc.get("acked").asLong());
        assertThat(doc.get("failedSends").asLong()).isZero();
        assertThat(fields(doc.get("acks1"))).containsExactly("acked", "lost");
        assertThat(doc.get("unavailability").get("windows").size()).isZero();
        // no fault, so no failover; only a stall of the loaded machine (GC, scheduling) can open a gap
        assertThat(doc.get("unavailability").get("maxNoAckGapMs").asLong()).as(r.toString()).isLessThan(5_000);
        assertThat(doc.get("examples").size()).isZero();
        // the default report dir is target/verify/<run> under the working dir (tests/ under Maven)
        String run = doc.get("run").asText();
        Path report = Path.of(doc.get("report").asText());
        assertThat(report).isEqualTo(Path.of("target", "verify", run, "report.md"));
        String md = Files.readString(report, StandardCharsets.UTF_8);
        assertThat(md).contains("# raftline verify: run " + run).contains("no safety anomaly found").contains("| lost | ok | 0 |");
        assertPlot(report.resolveSibling("acks.png"), md);
        // progress on stderr, every 5 s
        assertThat(r.err()).contains("[5/6 s] sent ");
        assertThat(VerifyTopics.of(cluster)).as("the run's topics are deleted afterwards").isEmpty();
    }

    @Test
    void aReplicationFactorAboveTheBrokerCountIsRefusedBeforeAnythingIsCreated() throws Exception {
        Cli.Result r = cli.run("verify", "--replication-factor", "5", "--duration", "1s");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.err()).as(r.toString()).startsWith("error: --replication-factor 5 is more than the 3 live broker(s)");
        assertThat(r.err().lines().count()).as(r.toString()).isEqualTo(1);
        assertThat(VerifyTopics.of(cluster)).isEmpty();
    }

    @Test
    void killingAPartitionLeaderLosesNothingAndItsWindowShowsTheUnavailability() throws Exception {
        Path dir = Path.of("target", "verify", "kill-leader");
        Files.createDirectories(dir);
        Path faultLog = dir.resolve("faults.log");
        Files.deleteIfExists(faultLog);
        CompletableFuture<Cli.Result> run = CompletableFuture.supplyAsync(() -> cli.run("verify", "--duration", "15s", "--output",
            "json", "--report-dir", dir.toString(), "--fault-log", faultLog.toString(), "--acks1-producer", "--write-history"));

        String topic = VerifyTopics.awaitFirst(cluster);
        // The fault lands while the workload is writing: once partition 0 holds a few hundred acknowledged records.
        TopicPartition tp0 = new TopicPartition(topic, 0);
        try (RaftlineConsumer<String, String> probe = new RaftlineConsumer<>(cluster.clientProperties(),
            new StringDeserializer(), new StringDeserializer())) {
            TestCluster.await(() -> {
                try {
                    return probe.endOffsets(List.of(tp0)).get(tp0) >= 500;
                } catch (RuntimeException e) {
                    return false;
                }
            }, Duration.ofSeconds(60), "verify's producers to write 500 records to " + tp0);
        }
        TopicPartitionInfo p0 = partition0(topic);
        assertThat(p0.leader()).isNotNull();
        TestNode victim = cluster.node(p0.leader().id());
        log(faultLog, "start kill-leader " + victim.id());
        victim.kill();
        // Down until the cluster has moved on without it: another leader for partition 0, and the victim out of its ISR.
        TestCluster.await(() -> {
            try {
                TopicPartitionInfo now = partition0(topic);
                return now.leader() != null && now.leader().id() != victim.id()
                    && now.isr().stream().noneMatch(n -> n.id() == victim.id());
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(60), "a new leader for " + tp0 + " without broker " + victim.id());
        victim.start();
        log(faultLog, "end kill-leader " + victim.id());

        Cli.Result r = run.get(240, TimeUnit.SECONDS);
        assertThat(r.exitCode()).as(r.toString()).isZero();
        JsonNode doc = document(r);
        assertNoAnomaly(doc, r);
        assertThat(doc.get("acked").asLong()).isGreaterThan(5_000);
        assertThat(doc.get("acks1").get("acked").asLong()).isPositive();
        JsonNode windows = doc.get("unavailability").get("windows");
        assertThat(windows.size()).as(r.toString()).isEqualTo(1);
        JsonNode w = windows.get(0);
        assertThat(w.get("fault").asText()).isEqualTo("kill-leader");
        assertThat(w.get("target").asText()).isEqualTo(Integer.toString(victim.id()));
        // the window lasts from the kill until a new leader was elected without the victim (waited for above)
        assertThat(w.get("endMs").asLong() - w.get("startMs").asLong()).isPositive().isLessThan(60_000L);
        // a kill -9 stops acknowledgements for the failover's time: more than the ack spacing, less than the window
        long gap = w.get("maxNoAckGapMs").asLong();
        assertThat(gap).as(r.toString()).isPositive().isLessThan(10_000);
        assertThat(doc.get("unavailability").get("maxNoAckGapMs").asLong()).isGreaterThanOrEqualTo(gap);
        String md = Files.readString(dir.resolve("report.md"), StandardCharsets.UTF_8);
        assertThat(md).contains("## Fault timeline").contains("| kill-leader | " + victim.id() + " |");
        assertPlot(dir.resolve("acks.png"), md);
        assertThat(dir.resolve("history.jsonl")).isNotEmptyFile();
        // after the heal every partition's replicas were checksummed over the same range (and agreed: no anomaly)
        List<JsonNode> sums = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("history.jsonl"), StandardCharsets.UTF_8)) {
            JsonNode e = JSON.readTree(line);
            if (e.path("type").asText().equals("replicaChecksum")) {
                sums.add(e);
            }
        }
        assertThat(sums).as("replica checksums in the history").hasSizeGreaterThanOrEqualTo(2);
        assertThat(sums).allSatisfy(c -> assertThat(c.get("toOffset").asLong()).isGreaterThan(c.get("fromOffset").asLong()));
        cluster.awaitBrokersActive(Duration.ofSeconds(60));
        System.out.println("verify with kill -9 of leader " + victim.id() + ": window max no-ack gap " + gap + " ms, overall "
            + doc.get("unavailability").get("maxNoAckGapMs") + " ms; " + r.out());
    }

    /** The report's plot of acknowledged records per second: a PNG beside report.md that the report links. */
    private static void assertPlot(Path png, String md) throws Exception {
        assertThat(md).contains("![Acknowledged records per second, fault windows shaded](acks.png)");
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).as(png + " is an image").isNotNull();
        assertThat(image.getWidth()).isGreaterThan(400);
    }

    private static void log(Path faultLog, String edge) throws Exception {
        Files.writeString(faultLog, SystemTime.INSTANCE.milliseconds() + " " + edge + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
    }

    private static TopicPartitionInfo partition0(String topic) throws Exception {
        return cluster.admin().describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0);
    }

}
