package io.raftline.tests.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The long-running and state-changing commands against one real 3-node cluster (node processes; the CLI in-process):
 * reassignment with a plan file (execute, verify while a replica is still catching up, cancel, complete), preferred
 * and unclean leader elections, configs of topics and brokers, the describe filters, perf, the exact JSON shapes of
 * the CLI contract (CLI.md), aligned tables, and the error paths with their exit codes.
 */
@Timeout(600)
class CliOperationsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SETTLE = Duration.ofSeconds(90);
    private static TestCluster cluster;
    private static Cli cli;

    @TempDir
    static Path tmp;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).config("auto.leader.rebalance.enable", "false").start();
        cli = new Cli(cluster.bootstrap());
        // /ready can answer before every broker has registered with the controller (slow on a loaded machine)
        awaitAllBrokersActive();
    }

    private static void awaitAllBrokersActive() {
        TestCluster.await(() -> cli.run("brokers", "list", "--output", "json").out().split("\"state\":\"active\"").length
            == cluster.nodes().size() + 1, SETTLE, "every broker to be registered and active");
    }

    private static void ok(Cli.Result r) {
        assertThat(r.exitCode()).as(r.toString()).isZero();
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

    private static List<Integer> ints(JsonNode array) {
        List<Integer> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asInt()));
        return out;
    }

    private static void assertOneErrorLine(Cli.Result r, int exitCode, String contains) {
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(exitCode);
        assertThat(r.err()).as(r.toString()).startsWith("error: ").contains(contains);
        assertThat(r.err().lines().count()).as(r.toString()).isEqualTo(1);
    }

    /** Every column of a table starts at the same index on every line (found from the header's column names). */
    static void assertAligned(String text, String... headers) {
        List<String> lines = text.lines().toList();
        String header = lines.get(0);
        for (String h : headers) {
            int start = header.indexOf(h);
            assertThat(start).as("header %s in %s", h, header).isGreaterThanOrEqualTo(0);
            for (String line : lines) {
                assertThat(line.length()).as("'%s' reaches column %s", line, h).isGreaterThan(start);
                assertThat(line.charAt(start)).as("column %s starts at %d in '%s'", h, start, line).isNotEqualTo(' ');
                if (start > 0) {
                    assertThat(line.charAt(start - 1)).as("a gap before column %s in '%s'", h, line).isEqualTo(' ');
                }
            }
        }
    }

    private static Path plan(String name, String topic, List<Integer> replicas) throws IOException {
        Path file = tmp.resolve(name + ".json");
        Files.writeString(file, "{\"version\":1,\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":0,\"replicas\":"
            + replicas + "}]}");
        return file;
    }

    private static JsonNode partition0(Cli cli, String topic) throws IOException {
        return cli.json("topics", "describe", "--topic", topic).get("topics").get(0).get("partitions").get(0);
    }

    private static void awaitComplete(Cli cli, Path plan) {
        TestCluster.await(() -> {
            Cli.Result r = cli.run("reassign", "--plan", plan.toString(), "--verify", "--output", "json");
            if (r.exitCode() != 0) {
                assertOneErrorLine(r, 1, "partition(s)");
                return false;
            }
            return Cli.document(r).get("complete").asBoolean();
        }, SETTLE, "the reassignment " + plan.getFileName() + " to complete");
    }

    /** {@code --verify} of a plan not done: exit 1 with one error line, and the status document on stdout. */
    private static JsonNode verifyNotDone(Cli cli, Path plan, String why) throws IOException {
        Cli.Result r = cli.run("reassign", "--plan", plan.toString(), "--verify", "--output", "json");
        assertOneErrorLine(r, 1, why);
        assertThat(r.outLines()).as(r.toString()).hasSize(1);
        return JSON.readTree(r.out());
    }

    /**
     * One story, in order: place two single-replica topics, take a broker down, start a move onto it (verify says it
     * is still catching up; the under-replicated filter shows it), see the topic that lived only there become
     * unavailable (and an unclean election refused: no live replica), cancel, bring the broker back, move again to the
     * end, then reorder the replicas and move leadership back with a preferred election.
     */
    @Test
    void reassignVerifyCancelAndLeaderElections() throws Exception {
        JsonNode quorum = cli.json("quorum", "status");
        int quorumLeader = quorum.get("leaderId").asInt();
        // x goes down during the test; it is not the quorum leader, so the quorum does not have to elect
        int x = cluster.nodes().stream().map(TestNode::id).filter(id -> id != quorumLeader).max(Integer::compare).orElseThrow();
        int y = cluster.nodes().stream().map(TestNode::id).filter(id -> id != x).findFirst().orElseThrow();
        Cli viaY = new Cli("127.0.0.1:" + cluster.node(y).brokerPort());

        ok(cli.run("topics", "create", "--topic", "moves", "--partitions", "1", "--replication-factor", "1"));
        ok(cli.run("topics", "create", "--topic", "only-on-x", "--partitions", "1", "--replication-factor", "1"));

        // --generate: an even plan over the brokers given, as a plan file --execute takes
        JsonNode generated = Cli.document(cli.run("reassign", "--generate", "--topics", "moves,only-on-x", "--brokers", x + "," + y));
        assertThat(generated.get("version").asInt()).isEqualTo(1);
        assertThat(generated.get("partitions")).hasSize(2);
        for (JsonNode p : generated.get("partitions")) {
            assertThat(fields(p)).containsExactly("topic", "partition", "replicas");
            assertThat(ints(p.get("replicas"))).hasSize(1).isSubsetOf(x, y);
        }
        assertThat(ints(generated.get("partitions").get(0).get("replicas")))
            .isNotEqualTo(ints(generated.get("partitions").get(1).get("replicas")));
        assertOneErrorLine(cli.run("reassign", "--generate", "--topics", "no-such-topic", "--brokers", "1"), 1, "no-such-topic");

        Path onY = plan("on-y", "moves", List.of(y));
        Path onX = plan("on-x", "only-on-x", List.of(x));
        JsonNode executed = cli.json("reassign", "--plan", onY.toString(), "--execute");
        assertThat(executed.get("ok").asBoolean()).isTrue();
        cli.json("reassign", "--plan", onX.toString(), "--execute");
        awaitComplete(cli, onY);
        awaitComplete(cli, onX);
        TestCluster.await(() -> cli.run("topics", "describe", "--under-replicated-partitions", "--output", "json").out()
            .equals("{\"topics\":[]}\n"), SETTLE, "no under-replicated partition on a healthy cluster");
        JsonNode none = cli.json("topics", "describe", "--unavailable-partitions");
        assertThat(none.get("topics")).isEmpty();

        cluster.node(x).kill();
        try {
            Path both = plan("both", "moves", List.of(y, x));
            viaY.json("reassign", "--plan", both.toString(), "--execute");
            JsonNode verify = verifyNotDone(viaY, both, "1 of 1 partition(s) still moving");
            assertThat(verify.get("complete").asBoolean()).isFalse();
            assertThat(verify.get("moving")).hasSize(1);
            JsonNode moving = verify.get("moving").get(0);
            assertThat(fields(moving)).contains("topic", "partition", "targetReplicas", "replicas", "isr", "catchingUp",
                "adding", "removing");
            assertThat(ints(moving.get("targetReplicas"))).containsExactly(y, x);
            assertThat(ints(moving.get("isr"))).containsExactly(y);
            assertThat(ints(moving.get("catchingUp"))).containsExactly(x);
            Cli.Result verifyTable = viaY.run("reassign", "--plan", both.toString(), "--verify");
            assertOneErrorLine(verifyTable, 1, "still moving");
            List<String> tableLines = verifyTable.outLines();
            assertAligned(String.join("\n", tableLines.subList(0, tableLines.size() - 1)),
                "TOPIC", "PARTITION", "STATE", "TARGET", "REPLICAS", "ISR", "CATCHING-UP", "REMOVING");
            assertThat(tableLines.get(1)).contains("moving");
            assertThat(tableLines.get(tableLines.size() - 1)).isEqualTo("0 of 1 partition(s) done; 1 still moving.");

            // the filters: 'moves' lacks a replica in its ISR; 'only-on-x' has no leader once x is fenced
            JsonNode under = viaY.json("topics", "describe", "--under-replicated-partitions");
            List<String> underTopics = new ArrayList<>();
            for (JsonNode t : under.get("topics")) {
                underTopics.add(t.get("topic").asText());
                for (JsonNode p : t.get("partitions")) {
                    assertThat(p.get("isr").size()).isLessThan(p.get("replicas").size());
                }
            }
            assertThat(underTopics).contains("moves");
            TestCluster.await(() -> viaY.run("topics", "describe", "--unavailable-partitions", "--output", "json").out()
                .contains("\"only-on-x\""), SETTLE, "only-on-x to be unavailable");
            JsonNode unavailable = viaY.json("topics", "describe", "--unavailable-partitions");
            for (JsonNode t : unavailable.get("topics")) {
                for (JsonNode p : t.get("partitions")) {
                    assertThat(p.get("leader").asInt()).isEqualTo(-1);
                    assertThat(p.get("highWatermark").isNull()).isTrue();
                }
            }

            // unclean election: refused, there is no live replica to take over
            Cli.Result unclean = viaY.run("leader-election", "--election-type", "unclean", "--topic", "only-on-x",
                "--output", "json");
            assertOneErrorLine(unclean, 1, "could not elect");
            JsonNode uncleanDoc = JSON.readTree(unclean.out());
            assertThat(uncleanDoc.get("ok").asBoolean()).isFalse();
            assertThat(uncleanDoc.get("failed").get(0).get("error").asText()).contains("active broker");

            Cli.Result cancel = viaY.run("reassign", "--plan", both.toString(), "--cancel");
            assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
            assertThat(cancel.out()).contains("Cancelled the reassignment of 1 partition(s)");
            JsonNode afterCancel = verifyNotDone(viaY, both, "neither moving nor on the plan's replicas");
            assertThat(afterCancel.get("complete").asBoolean()).isFalse();
            assertThat(afterCancel.get("mismatched")).hasSize(1);
            assertThat(ints(afterCancel.get("mismatched").get(0).get("replicas"))).containsExactly(y);
            Cli.Result cancelAgain = viaY.run("reassign", "--plan", both.toString(), "--cancel");
            assertOneErrorLine(cancelAgain, 1, "no reassignment in progress");
        } finally {
            cluster.node(x).start();
        }
        awaitAllBrokersActive();

        Path both = plan("both-again", "moves", List.of(y, x));
        cli.json("reassign", "--plan", both.toString(), "--execute");
        awaitComplete(cli, both);
        JsonNode done = cli.json("reassign", "--plan", both.toString(), "--verify");
        assertThat(done.get("done")).hasSize(1);
        assertThat(ints(done.get("done").get(0).get("isr"))).containsExactlyInAnyOrder(x, y);

        // reorder: x is now preferred, but a reorder keeps the current leader
        TestCluster.await(() -> {
            try {
                return partition0(cli, "moves").get("leader").asInt() == y;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, SETTLE, "y to lead 'moves'");
        Path reordered = plan("reordered", "moves", List.of(x, y));
        cli.json("reassign", "--plan", reordered.toString(), "--execute");
        awaitComplete(cli, reordered);
        assertThat(partition0(cli, "moves").get("leader").asInt()).isEqualTo(y);

        JsonNode preferred = cli.json("leader-election", "--election-type", "preferred", "--topic", "moves");
        assertThat(preferred.get("ok").asBoolean()).isTrue();
        assertThat(preferred.get("elected")).hasSize(1);
        assertThat(fields(preferred.get("elected").get(0))).containsExactly("topic", "partition", "leader");
        assertThat(preferred.get("elected").get(0).get("leader").asInt()).isEqualTo(x);
        assertThat(partition0(cli, "moves").get("leader").asInt()).isEqualTo(x);

        Cli.Result again = cli.run("leader-election", "--type", "preferred", "--topic", "moves", "--partition", "0");
        assertThat(again.exitCode()).as(again.toString()).isZero();
        assertAligned(String.join("\n", again.outLines().subList(0, 2)), "TOPIC", "PARTITION", "RESULT", "LEADER", "WHY");
        assertThat(again.outLines().get(1)).contains("not needed").contains("already leads");
        assertThat(again.outLines().get(2)).isEqualTo("Elected a new leader for 0 partition(s); 1 needed no election; 0 failed.");

        JsonNode uncleanNotNeeded = cli.json("leader-election", "--election-type", "unclean", "--topic", "moves");
        assertThat(uncleanNotNeeded.get("notNeeded").get(0).get("reason").asText()).contains("has leader " + x);

        assertOneErrorLine(cli.run("leader-election", "--type", "sideways", "--all-topic-partitions"), 1, "preferred or unclean");
        Cli.Result both2 = cli.run("leader-election", "--type", "preferred", "--topic", "moves", "--all-topic-partitions");
        assertThat(both2.exitCode()).isEqualTo(2);
    }

    @Test
    void configsAlterAndDescribeForTopicsAndBrokers() throws Exception {
        ok(cli.run("topics", "create", "--topic", "configured", "--partitions", "1"));
        JsonNode altered = cli.json("configs", "alter", "--entity-type", "topic", "--entity-name", "configured",
            "--add-config", "retention.ms=3600000,cleanup.policy=compact");
        assertThat(altered.get("ok").asBoolean()).isTrue();
        JsonNode described = cli.json("configs", "describe", "--entity-type", "topic", "--entity-name", "configured");
        assertThat(fields(described)).containsExactly("entityType", "entityName", "configs");
        assertThat(described.get("entityType").asText()).isEqualTo("topic");
        assertThat(described.get("entityName").asText()).isEqualTo("configured");
        for (JsonNode c : described.get("configs")) {
            assertThat(fields(c)).containsExactly("name", "value", "source", "readOnly");
            switch (c.get("name").asText()) {
                case "retention.ms" -> assertThat(c.get("value").asText() + "/" + c.get("source").asText())
                    .isEqualTo("3600000/topic");
                case "cleanup.policy" -> assertThat(c.get("value").asText() + "/" + c.get("source").asText())
                    .isEqualTo("compact/topic");
                default -> assertThat(c.get("source").asText()).isIn("default", "broker");
            }
        }

        cli.json("configs", "alter", "--entity-type", "topic", "--entity-name", "configured", "--delete-config",
            "cleanup.policy");
        Cli.Result table = cli.run("configs", "describe", "--entity-type", "topic", "--entity-name", "configured");
        assertThat(table.exitCode()).isZero();
        assertAligned(table.out(), "NAME", "VALUE", "SOURCE");
        assertThat(table.outLines()).anyMatch(l -> Pattern.matches("cleanup\\.policy +delete +(default|broker)", l));
        assertThat(table.outLines()).anyMatch(l -> Pattern.matches("retention\\.ms +3600000 +topic", l));

        assertOneErrorLine(cli.run("configs", "alter", "--entity-type", "topic", "--entity-name", "configured",
            "--add-config", "no.such.config=1"), 1, "no.such.config");
        assertOneErrorLine(cli.run("configs", "alter", "--entity-type", "topic", "--entity-name", "configured",
            "--add-config", "retention.ms=soon"), 1, "retention.ms");
        assertOneErrorLine(cli.run("configs", "describe", "--entity-type", "topic", "--entity-name", "no-such-topic"), 1,
            "no-such-topic");
        assertOneErrorLine(cli.run("configs", "describe", "--entity-type", "cluster", "--entity-name", "x"), 1,
            "topic, broker, users or clients");

        JsonNode broker = cli.json("configs", "describe", "--entity-type", "broker", "--entity-name", "1");
        assertThat(broker.get("entityType").asText()).isEqualTo("broker");
        List<String> names = new ArrayList<>();
        for (JsonNode c : broker.get("configs")) {
            assertThat(fields(c)).containsExactly("name", "value", "source", "readOnly");
            names.add(c.get("name").asText());
        }
        assertThat(names).contains("node.id");
        Cli.Result brokerAlter = cli.run("configs", "alter", "--entity-type", "broker", "--entity-name", "1",
            "--add-config", "log.retention.ms=1000");
        assertThat(brokerAlter.err().lines().count()).as(brokerAlter.toString()).isLessThanOrEqualTo(1);
        if (brokerAlter.exitCode() != 0) {
            assertOneErrorLine(brokerAlter, 1, "");
        }
    }

    @Test
    void jsonShapesAndTablesFollowTheContract() throws Exception {
        ok(cli.run("topics", "create", "--topic", "shapes", "--partitions", "3", "--replication-factor", "3"));
        JsonNode list = cli.json("topics", "list");
        assertThat(fields(list)).containsExactly("topics");
        for (JsonNode t : list.get("topics")) {
            assertThat(fields(t)).containsExactly("topic", "internal");
        }
        JsonNode describe = cli.json("topics", "describe", "--topic", "shapes");
        JsonNode topic = describe.get("topics").get(0);
        assertThat(fields(topic)).containsExactly("topic", "topicId", "internal", "partitions");
        assertThat(topic.get("topicId").asText()).matches("[A-Za-z0-9_-]{22}");
        for (JsonNode p : topic.get("partitions")) {
            assertThat(fields(p)).containsExactly("partition", "leader", "leaderEpoch", "replicas", "isr", "osr",
                "highWatermark", "logStartOffset", "logEndOffset");
        }
        JsonNode brokers = cli.json("brokers", "list");
        for (JsonNode b : brokers.get("brokers")) {
            assertThat(fields(b)).contains("id", "endpoint", "rack", "state", "epoch");
            assertThat(b.get("rack").isNull()).isTrue();
        }
        JsonNode quorum = cli.json("quorum", "status");
        assertThat(fields(quorum)).contains("leaderId", "term", "controllerEpoch", "commitIndex", "voters", "listeners");
        for (JsonNode v : quorum.get("voters")) {
            assertThat(fields(v)).contains("id", "endpoint", "lagEntries", "lastContactMs");
        }

        Cli.Result table = cli.run("topics", "describe", "--topic", "shapes");
        assertThat(table.exitCode()).isZero();
        assertThat(table.outLines()).hasSize(4);
        assertAligned(table.out(), "TOPIC", "PARTITION", "LEADER", "EPOCH", "REPLICAS", "ISR", "OSR", "HW", "LOG-START",
            "LOG-END");
        Cli.Result brokersTable = cli.run("brokers", "list");
        assertThat(brokersTable.outLines()).hasSize(4);
        String header = brokersTable.outLines().get(0);
        assertAligned(brokersTable.out(), header.trim().split(" +"));
    }

    /**
     * As Kafka's producer-perf-test: each record a fresh random run of capital letters (codec rows depend on it), and
     * {@code --warmup-records} adds a steady-state summary of the records after the warm-up.
     */
    @Test
    void perfProduceSendsAFreshRandomValueEveryRecordAndSummarizesTheSteadyState() throws Exception {
        ok(cli.run("topics", "create", "--topic", "perf-values", "--partitions", "1", "--replication-factor", "1"));
        JsonNode warmed = cli.json("perf", "produce", "--topic", "perf-values", "--num-records", "40", "--record-size",
            "32", "--throughput", "-1", "--warmup-records", "10");
        assertThat(fields(warmed)).containsExactly("records", "recordsPerSec", "mbPerSec", "latencyMs", "steadyState",
            "errors");
        assertThat(warmed.get("records").asLong()).isEqualTo(40);
        JsonNode steady = warmed.get("steadyState");
        assertThat(fields(steady)).containsExactly("records", "recordsPerSec", "mbPerSec", "latencyMs");
        assertThat(steady.get("records").asLong()).isEqualTo(30);
        assertThat(steady.get("latencyMs").get("max").asDouble())
            .isLessThanOrEqualTo(warmed.get("latencyMs").get("max").asDouble());
        Cli.Result read = cli.run("consume", "--topic", "perf-values", "--from-beginning", "--max-messages", "40",
            "--timeout-ms", "60000");
        ok(read);
        List<String> values = read.out().lines().toList();
        assertThat(values).as(read.toString()).hasSize(40).allMatch(v -> v.matches("[A-Z]{32}"));
        assertThat(new java.util.HashSet<>(values)).as("distinct values").hasSize(40);

        Cli.Result text = cli.run("perf", "produce", "--topic", "perf-values", "--num-records", "6", "--record-size", "8",
            "--throughput", "-1", "--warmup-records", "2");
        ok(text);
        assertThat(text.out().lines()).as(text.toString())
            .anyMatch(l -> l.matches("6 records sent, .* ms 99\\.9th\\."))
            .anyMatch(l -> l.matches("4 steady state records sent, .* ms 99\\.9th\\."));
        assertOneErrorLine(cli.run("perf", "produce", "--topic", "perf-values", "--num-records", "6", "--record-size", "8",
            "--throughput", "-1", "--warmup-records", "6"), 1, "--warmup-records");
    }

    @Test
    void perfPrintsProgressAndSummaries() throws Exception {
        ok(cli.run("topics", "create", "--topic", "perf", "--partitions", "2", "--replication-factor", "3"));
        // 1,300 records at 200/s take 6.5 s: at least one 5-second progress line, then the summary
        Cli.Result paced = cli.run("perf", "produce", "--topic", "perf", "--num-records", "1300", "--record-size", "100",
            "--throughput", "200");
        assertThat(paced.exitCode()).as(paced.toString()).isZero();
        List<String> lines = paced.outLines();
        assertThat(lines.size()).as(paced.toString()).isGreaterThanOrEqualTo(2);
        for (String progress : lines.subList(0, lines.size() - 1)) {
            assertThat(progress).matches("\\d+ records sent, [\\d.]+ records/sec, [\\d.]+ ms avg latency, [\\d.]+ ms max latency\\.");
        }
        assertThat(lines.get(lines.size() - 1)).matches("1300 records sent, [\\d.]+ records/sec \\([\\d.]+ MB/sec\\), "
            + "[\\d.]+ ms avg latency, [\\d.]+ ms max latency, \\d+ ms 50th, \\d+ ms 95th, \\d+ ms 99th, \\d+ ms 99\\.9th\\.");

        JsonNode produce = cli.json("perf", "produce", "--topic", "perf", "--num-records", "300", "--record-size", "64",
            "--throughput", "-1", "--producer-property", "linger.ms=1");
        assertThat(fields(produce)).containsExactly("records", "recordsPerSec", "mbPerSec", "latencyMs", "errors");
        assertThat(produce.get("records").asLong()).isEqualTo(300);
        assertThat(produce.get("errors").asLong()).isZero();
        assertThat(fields(produce.get("latencyMs"))).containsExactly("avg", "p50", "p95", "p99", "p999", "max");
        JsonNode latency = produce.get("latencyMs");
        assertThat(latency.get("p50").asDouble()).isLessThanOrEqualTo(latency.get("p99").asDouble());
        assertThat(latency.get("p99").asDouble()).isLessThanOrEqualTo(latency.get("max").asDouble());

        JsonNode consume = cli.json("perf", "consume", "--topic", "perf", "--messages", "1600");
        assertThat(fields(consume)).containsExactly("records", "msgsPerSec", "mbPerSec", "rebalanceMs", "fetchMs",
            "fetchMsgsPerSec", "fetchMbPerSec");
        assertThat(consume.get("records").asLong()).isEqualTo(1600);

        JsonNode e2e = cli.json("perf", "e2e", "--topic", "perf", "--num-records", "20", "--record-size", "16");
        assertThat(fields(e2e)).containsExactly("records", "e2eAvgMs", "e2eP50Ms", "e2eP99Ms", "e2eP999Ms");
        assertThat(e2e.get("records").asInt()).isEqualTo(20);
        assertThat(e2e.get("e2eAvgMs").asDouble()).isPositive();

        JsonNode topics = cli.json("perf", "topics", "--count", "3", "--partitions", "1", "--replication-factor", "1");
        assertThat(fields(topics)).containsExactly("topics", "topicsPerSec", "perCallMs");
        assertThat(fields(topics.get("perCallMs"))).containsExactly("avg", "p50", "p99", "max");
        TestCluster.await(() -> !cli.run("topics", "list").out().contains("perf-topics-"), SETTLE,
            "perf topics to delete what it created");
        // several clients at once: every topic created (count split between them), then every one deleted
        JsonNode concurrent = cli.json("perf", "topics", "--count", "7", "--partitions", "1", "--replication-factor", "1",
            "--clients", "3");
        assertThat(concurrent.get("topics").asInt()).isEqualTo(7);
        assertThat(concurrent.get("topicsPerSec").asDouble()).isPositive();
        TestCluster.await(() -> !cli.run("topics", "list").out().contains("perf-topics-"), SETTLE,
            "perf topics --clients to delete what it created");

        assertOneErrorLine(cli.run("perf", "produce", "--topic", "perf", "--num-records", "0", "--record-size", "10",
            "--throughput", "-1"), 1, "--num-records");
        assertOneErrorLine(cli.run("perf", "e2e", "--topic", "perf", "--num-records", "5", "--record-size", "0"), 1,
            "--record-size");
        assertOneErrorLine(cli.run("perf", "topics", "--count", "0", "--partitions", "1", "--replication-factor", "1"), 1,
            "--count");
        assertOneErrorLine(cli.run("perf", "topics", "--count", "2", "--partitions", "1", "--replication-factor", "1",
            "--clients", "3"), 1, "--clients");
        assertThat(cli.run("perf", "produce", "--topic", "perf", "--num-records", "ten", "--record-size", "10",
            "--throughput", "-1").exitCode()).isEqualTo(2);
    }

    @Test
    void errorPathsExitCodesAndVerbose() {
        ok(cli.run("topics", "create", "--topic", "twice", "--partitions", "1"));
        assertOneErrorLine(cli.run("topics", "create", "--topic", "twice", "--partitions", "1"), 1, "already exists");
        assertOneErrorLine(cli.run("topics", "describe", "--topic", "nowhere"), 1, "nowhere");
        assertOneErrorLine(cli.run("topics", "delete", "--topic", "nowhere"), 1, "nowhere");
        assertOneErrorLine(cli.run("topics", "alter", "--topic", "nowhere", "--partitions", "4"), 1, "nowhere");
        assertOneErrorLine(cli.run("topics", "alter", "--topic", "twice", "--partitions", "1"), 1, "");
        assertOneErrorLine(cli.run("topics", "alter", "--topic", "twice"), 1, "nothing to alter");
        for (String bad : List.of("has space", "..", "x".repeat(250), "semi;colon")) {
            assertOneErrorLine(cli.run("topics", "create", "--topic", bad, "--partitions", "1"), 1, "");
        }
        assertOneErrorLine(cli.run("topics", "create", "--topic", "negative", "--partitions", "-1"), 1, "");
        assertOneErrorLine(cli.run("topics", "create", "--topic", "norf", "--partitions", "1", "--replication-factor", "0"),
            1, "");
        assertOneErrorLine(cli.run("reassign", "--plan", "/no/such/plan.json", "--verify"), 1, "cannot read the plan");

        Cli.Result unknownCommand = cli.run("frobnicate");
        assertThat(unknownCommand.exitCode()).isEqualTo(2);
        assertThat(unknownCommand.err()).contains("frobnicate");
        assertThat(unknownCommand.out()).isEmpty();
        Cli.Result unknownFlag = cli.run("topics", "list", "--no-such-flag");
        assertThat(unknownFlag.exitCode()).isEqualTo(2);
        assertThat(unknownFlag.err()).contains("--no-such-flag").contains("Usage:");
        assertThat(cli.run("topics", "describe", "--output", "yaml").exitCode()).isEqualTo(2);
        assertThat(cli.run("reassign", "--plan", "p.json").exitCode()).as("a missing required flag").isEqualTo(2);
        assertThat(cli.run("topics").exitCode()).as("a command group without its subcommand").isEqualTo(2);

        Cli.Result quiet = cli.run("topics", "describe", "--topic", "nowhere");
        assertThat(quiet.err()).doesNotContain("\tat ");
        Cli.Result verbose = cli.run("topics", "describe", "--topic", "nowhere", "--verbose");
        assertThat(verbose.exitCode()).isEqualTo(1);
        assertThat(verbose.err().lines().findFirst().orElseThrow()).isEqualTo(quiet.err().strip());
        assertThat(verbose.err()).contains("\tat ");
    }
}
