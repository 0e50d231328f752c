package io.raftline.tests.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.client.admin.ReplicaLogInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code raftline delete-records} (as kafka-delete-records) against a real 3-node cluster, the CLI in-process: the
 * leader's log start offset moves to the offset asked, consumers from earliest start there, every follower in the ISR
 * has followed when the command returns, and a follower elected leader afterwards starts there too; a bad file, an unknown topic or an offset above the high
 * watermark is one clear error and deletes nothing.
 */
@Timeout(600)
class DeleteRecordsCliIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SETTLE = Duration.ofSeconds(90);
    private static TestCluster cluster;
    private static Cli cli;

    @TempDir
    static Path tmp;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).start();
        cli = new Cli(cluster.bootstrap());
        cluster.awaitBrokersActive(SETTLE);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void ok(Cli.Result r) {
        assertThat(r.exitCode()).as(r.toString()).isZero();
    }

    private static void assertOneErrorLine(Cli.Result r, String contains) {
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.err()).as(r.toString()).startsWith("error: ").contains(contains);
        assertThat(r.err().lines().count()).as(r.toString()).isEqualTo(1);
    }

    private static void createAndFill(String topic, int records) throws IOException {
        ok(cli.run("topics", "create", "--topic", topic, "--partitions", "1", "--replication-factor", "3"));
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < records; i++) {
            lines.append("v").append(i).append('\n');
        }
        ok(cli.runWithInput(lines.toString(), "produce", "--topic", topic));
        TestCluster.await(() -> partition(topic).path("highWatermark").asLong(-1) == records, SETTLE,
            "the high watermark of " + topic + " at " + records);
    }

    /** Partition 0 of the topic as {@code topics describe} has it (its offsets come from the leader). */
    private static JsonNode partition(String topic) {
        return cli.json("topics", "describe", "--topic", topic).get("topics").get(0).get("partitions").get(0);
    }

    private static Path offsetFile(String name, String content) throws IOException {
        Path file = tmp.resolve(name);
        Files.writeString(file, content);
        return file;
    }

    private static String file(String topic, long offset) {
        return "{\"version\":1,\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":0,\"offset\":" + offset + "}]}";
    }

    /** The offset of the first record a new consumer of partition 0 reads from earliest. */
    private static long firstOffsetFromEarliest(String topic) {
        TopicPartition tp = new TopicPartition(topic, 0);
        try (RaftlineConsumer<String, String> consumer = new RaftlineConsumer<>(cluster.clientProperties(
            "auto.offset.reset", "earliest"), new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(tp));
            long deadline = System.nanoTime() + SETTLE.toNanos();
            while (System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    return r.offset();
                }
            }
            throw new AssertionError("no record of " + tp + " within " + SETTLE);
        }
    }

    /** Every replica's log start offset of partition 0, by broker id, from the brokers that answer. */
    private static Map<Integer, Long> replicaStarts(String topic) throws Exception {
        Map<Integer, Long> out = new java.util.TreeMap<>();
        for (Map.Entry<Integer, java.util.concurrent.CompletableFuture<List<ReplicaLogInfo>>> e
            : cluster.admin().describeLogs(null, Duration.ofSeconds(5)).values().entrySet()) {
            try {
                for (ReplicaLogInfo r : e.getValue().get(10, TimeUnit.SECONDS)) {
                    if (r.partition().equals(new TopicPartition(topic, 0))) {
                        out.put(e.getKey(), r.logStartOffset());
                    }
                }
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ignored) {
                // a stopped broker: not counted
            }
        }
        return out;
    }

    @Test
    void deletesBelowTheOffsetOnEveryReplicaAndAFollowerElectedLeaderStartsThere() throws Exception {
        createAndFill("dr", 20);
        JsonNode deleted = cli.json("delete-records", "--offset-json-file", offsetFile("dr.json", file("dr", 8)).toString());
        assertThat(deleted.get("partitions")).hasSize(1);
        JsonNode p = deleted.get("partitions").get(0);
        assertThat(p.get("topic").asText()).isEqualTo("dr");
        assertThat(p.get("partition").asInt()).isZero();
        assertThat(p.get("lowWatermark").asLong()).isEqualTo(8);
        assertThat(p.get("error").isNull()).isTrue();
        assertThat(partition("dr").get("logStartOffset").asLong()).isEqualTo(8);
        assertThat(firstOffsetFromEarliest("dr")).isEqualTo(8);

        // the table: one row per partition with its low watermark
        Cli.Result table = cli.run("delete-records", "--offset-json-file", offsetFile("dr-lower.json", file("dr", 3)).toString());
        ok(table);
        assertThat(table.outLines().get(0)).contains("TOPIC", "PARTITION", "LOW-WATERMARK");
        assertThat(table.outLines().get(1)).as("below the start: nothing changes").contains("dr").contains("8");

        // answered only once the ISR followed: every replica starts at 8 already
        assertThat(replicaStarts("dr")).as("log start offsets by broker").hasSize(3).allSatisfy((id, start) ->
            assertThat(start).as("broker " + id).isEqualTo(8));

        int leader = partition("dr").get("leader").asInt();
        TestNode stopped = cluster.node(leader);
        stopped.stop(Duration.ofSeconds(30));
        try {
            TestCluster.await(() -> {
                JsonNode now = partition("dr");
                return now.get("leader").asInt() >= 0 && now.get("leader").asInt() != leader
                    && !now.get("logStartOffset").isNull();
            }, SETTLE, "a new leader of dr-0");
            assertThat(partition("dr").get("logStartOffset").asLong()).as("the new leader's log start").isEqualTo(8);
            assertThat(firstOffsetFromEarliest("dr")).isEqualTo(8);
        } finally {
            stopped.start();
            cluster.awaitBrokersActive(SETTLE);
        }
        // the restarted replica kept its start too (its log-start-offset-checkpoint)
        TestCluster.await(() -> {
            try {
                return replicaStarts("dr").get(leader) != null && replicaStarts("dr").get(leader) == 8;
            } catch (Exception e) {
                return false;
            }
        }, SETTLE, "the restarted broker's replica of dr-0 starting at 8");
    }

    @Test
    void badInputIsOneErrorAndDeletesNothing() throws Exception {
        createAndFill("keep", 5);
        assertOneErrorLine(cli.run("delete-records", "--offset-json-file", offsetFile("bad.json", "{\"version\":1").toString()),
            "is not valid");
        assertOneErrorLine(cli.run("delete-records", "--offset-json-file", tmp.resolve("missing.json").toString()),
            "cannot read the offset file");
        String unknownAndKnown = "{\"version\":1,\"partitions\":[{\"topic\":\"keep\",\"partition\":0,\"offset\":2},"
            + "{\"topic\":\"nosuch\",\"partition\":0,\"offset\":1}]}";
        assertOneErrorLine(cli.run("delete-records", "--offset-json-file", offsetFile("unknown.json", unknownAndKnown).toString()),
            "'nosuch' does not exist");
        assertOneErrorLine(cli.run("delete-records", "--offset-json-file", offsetFile("nopart.json",
            "{\"version\":1,\"partitions\":[{\"topic\":\"keep\",\"partition\":3,\"offset\":1}]}").toString()), "partition 3");
        assertThat(partition("keep").get("logStartOffset").asLong()).as("nothing deleted").isZero();

        Cli.Result beyond = cli.run("delete-records", "--offset-json-file", offsetFile("beyond.json", file("keep", 6)).toString(),
            "--output", "json");
        assertOneErrorLine(beyond, "high watermark");
        JsonNode failed = JSON.readTree(beyond.out()).get("partitions").get(0);
        assertThat(failed.get("lowWatermark").isNull()).isTrue();
        assertThat(failed.get("error").asText()).contains("high watermark 5");
        assertThat(partition("keep").get("logStartOffset").asLong()).as("nothing deleted").isZero();
        assertThat(firstOffsetFromEarliest("keep")).isZero();

        // -1: the high watermark
        assertThat(cli.json("delete-records", "--offset-json-file", offsetFile("hw.json", file("keep", -1)).toString())
            .get("partitions").get(0).get("lowWatermark").asLong()).isEqualTo(5);
    }
}
