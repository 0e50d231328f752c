package io.raftline.tests.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The habits of Kafka's tools (the CLI contract's "Parity with Kafka's tools") against one real 3-node cluster, the
 * CLI in-process: kafka-topics' --if-not-exists, --if-exists and --replica-assignment; kafka-configs' bracketed
 * lists; kafka-consumer-groups' reset-offsets scopes, targets, --export and --from-file, and describe --members /
 * --state; the console producer's and consumer's --property keys, --formatter json and --value-format; and
 * --output json refused where a command cannot honour it.
 */
@Timeout(600)
class CliParityIT {

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

    private static void assertUsage(Cli.Result r, String contains) {
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).as(r.toString()).contains(contains);
        assertThat(r.out()).as(r.toString()).isEmpty();
    }

    private static List<Integer> ints(JsonNode array) {
        List<Integer> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asInt()));
        return out;
    }

    /** The group's committed offsets by "topic-partition", from groups describe. */
    private static Map<String, Long> committed(String group) throws IOException {
        Map<String, Long> out = new TreeMap<>();
        for (JsonNode o : cli.json("groups", "describe", "--group", group).get("offsets")) {
            if (!o.get("committed").isNull()) {
                out.put(o.get("topic").asText() + "-" + o.get("partition").asInt(), o.get("committed").asLong());
            }
        }
        return out;
    }

    private static void produce(String topic, int partition, int count) {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < count; i++) {
            lines.append(topic).append('-').append(partition).append('-').append(i).append('\n');
        }
        ok(cli.runWithInput(lines.toString(), "produce", "--topic", topic, "--partition", Integer.toString(partition)));
    }

    @Test
    void topicsIfNotExistsIfExistsAndReplicaAssignment() throws Exception {
        List<Integer> ids = cluster.nodes().stream().map(TestNode::id).sorted().toList();
        int a = ids.get(0);
        int b = ids.get(1);
        int c = ids.get(2);
        String assignment = a + ":" + b + ":" + c + "," + b + ":" + c + ":" + a;
        JsonNode created = cli.json("topics", "create", "--topic", "placed", "--replica-assignment", assignment);
        assertThat(created.get("created").asBoolean()).isTrue();
        assertThat(created.get("partitions").asInt()).isEqualTo(2);
        assertThat(created.get("replicationFactor").asInt()).isEqualTo(3);
        JsonNode parts = cli.json("topics", "describe", "--topic", "placed").get("topics").get(0).get("partitions");
        assertThat(ints(parts.get(0).get("replicas"))).containsExactly(a, b, c);
        assertThat(ints(parts.get(1).get("replicas"))).containsExactly(b, c, a);

        assertOneErrorLine(cli.run("topics", "create", "--topic", "placed", "--partitions", "1"), "already exists");
        Cli.Result again = cli.run("topics", "create", "--topic", "placed", "--partitions", "5", "--if-not-exists");
        ok(again);
        assertThat(again.out()).contains("already exists").contains("nothing changed");
        JsonNode againJson = cli.json("topics", "create", "--topic", "placed", "--replica-assignment", assignment, "--if-not-exists");
        assertThat(againJson.get("created").asBoolean()).isFalse();
        assertThat(againJson.get("partitions").asInt()).as("an existing topic is left as it is").isEqualTo(2);
        JsonNode fresh = cli.json("topics", "create", "--topic", "fresh", "--partitions", "1", "--if-not-exists");
        assertThat(fresh.get("created").asBoolean()).isTrue();

        assertUsage(cli.run("topics", "create", "--topic", "x", "--replica-assignment", assignment, "--partitions", "2"),
            "--replica-assignment");
        assertUsage(cli.run("topics", "create", "--topic", "x", "--replica-assignment", "1:2", "--replication-factor", "2"),
            "--replica-assignment");
        assertUsage(cli.run("topics", "create", "--topic", "x", "--replica-assignment", a + ":x"), "is not a broker id");
        assertOneErrorLine(cli.run("topics", "create", "--topic", "x", "--replica-assignment", a + ":" + a),
            "lists a broker twice");
        assertOneErrorLine(cli.run("topics", "create", "--topic", "x", "--replica-assignment", a + ":" + b + "," + c),
            "every partition needs the same number");
        assertOneErrorLine(cli.run("topics", "create", "--topic", "x", "--replica-assignment", a + ":999"),
            "broker 999, which is not registered");
        assertOneErrorLine(cli.run("topics", "describe", "--topic", "x"), "x");

        Cli.Result gone = cli.run("topics", "delete", "--topic", "nowhere", "--if-exists");
        ok(gone);
        assertThat(gone.out()).contains("does not exist; nothing changed");
        assertThat(cli.json("topics", "delete", "--topic", "nowhere", "--if-exists").get("deleted").asBoolean()).isFalse();
        assertOneErrorLine(cli.run("topics", "delete", "--topic", "nowhere"), "nowhere");
        assertThat(cli.json("topics", "delete", "--topic", "fresh", "--if-exists").get("deleted").asBoolean()).isTrue();
    }

    @Test
    void addConfigTakesKafkasBracketedLists() throws Exception {
        ok(cli.run("topics", "create", "--topic", "listed", "--partitions", "1"));
        ok(cli.run("configs", "alter", "--entity-type", "topic", "--entity-name", "listed",
            "--add-config", "cleanup.policy=[compact,delete],retention.ms=3600000"));
        Map<String, String> values = new TreeMap<>();
        for (JsonNode c : cli.json("configs", "describe", "--entity-type", "topic", "--entity-name", "listed").get("configs")) {
            values.put(c.get("name").asText(), c.get("value").asText());
        }
        assertThat(values).containsEntry("cleanup.policy", "compact,delete").containsEntry("retention.ms", "3600000");
        assertUsage(cli.run("configs", "alter", "--entity-type", "topic", "--entity-name", "listed",
            "--add-config", "cleanup.policy=[compact,delete"), "without its ']'");
        assertUsage(cli.run("configs", "alter", "--entity-type", "topic", "--entity-name", "listed",
            "--add-config", "novalue"), "is not K=V");
    }

    @Test
    void resetOffsetsScopesTargetsExportAndFromFile() throws Exception {
        ok(cli.run("topics", "create", "--topic", "ro", "--partitions", "2", "--replication-factor", "3"));
        ok(cli.run("topics", "create", "--topic", "ro2", "--partitions", "1", "--replication-factor", "3"));
        produce("ro", 0, 10);
        produce("ro", 1, 10);
        produce("ro2", 0, 4);

        // an unknown group: its offsets are created; --topic twice, one with a partition list
        JsonNode first = cli.json("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro", "--topic", "ro2:0",
            "--to-offset", "5", "--execute");
        assertThat(first.get("ok").asBoolean()).isTrue();
        assertThat(committed("g-ro")).isEqualTo(Map.of("ro-0", 5L, "ro-1", 5L, "ro2-0", 4L));

        // --shift-by, backwards (a negative value as its own argument) and forwards past the end (clamped)
        Cli.Result dry = cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro", "--shift-by", "-2", "--dry-run");
        ok(dry);
        assertThat(dry.outLines()).anyMatch(l -> l.matches("ro +0 +5 +3"));
        assertThat(dry.out()).contains("dry run");
        assertThat(committed("g-ro")).containsEntry("ro-0", 5L);
        ok(cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro:1", "--shift-by=100", "--execute"));
        assertThat(committed("g-ro")).isEqualTo(Map.of("ro-0", 5L, "ro-1", 10L, "ro2-0", 4L));
        ok(cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro:0", "--shift-by", "-100", "--execute"));
        assertThat(committed("g-ro")).containsEntry("ro-0", 0L);

        // --all-topics is every partition the group has a commit for; --to-current keeps them
        JsonNode current = cli.json("groups", "reset-offsets", "--group", "g-ro", "--all-topics", "--to-current", "--dry-run");
        Map<String, Long> planned = new TreeMap<>();
        current.get("offsets").forEach(o -> planned.put(o.get("topic").asText() + "-" + o.get("partition").asInt(),
            o.get("newOffset").asLong()));
        assertThat(planned).isEqualTo(committed("g-ro"));

        // --by-duration: an hour ago is before every record (the log start); no time at all is after all (the log end)
        ok(cli.run("groups", "reset-offsets", "--group", "g-ro", "--all-topics", "--by-duration", "PT1H", "--execute"));
        assertThat(committed("g-ro")).isEqualTo(Map.of("ro-0", 0L, "ro-1", 0L, "ro2-0", 0L));
        ok(cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro", "--by-duration", "PT0S", "--execute"));
        assertThat(committed("g-ro")).isEqualTo(Map.of("ro-0", 10L, "ro-1", 10L, "ro2-0", 0L));

        // --export prints Kafka's CSV; --from-file reads it back, clamping what is out of range
        Cli.Result export = cli.run("groups", "reset-offsets", "--group", "g-ro", "--all-topics", "--to-earliest", "--dry-run",
            "--export");
        ok(export);
        assertThat(export.out()).isEqualTo("ro,0,0\nro,1,0\nro2,0,0\n");
        Path plan = tmp.resolve("plan.csv");
        Files.writeString(plan, "ro,0,7\nro,1,999\n", StandardCharsets.UTF_8);
        Cli.Result fromFile = cli.run("groups", "reset-offsets", "--group", "g-ro", "--from-file", plan.toString(), "--execute",
            "--export");
        ok(fromFile);
        assertThat(fromFile.out()).isEqualTo("ro,0,7\nro,1,10\n");
        assertThat(committed("g-ro")).isEqualTo(Map.of("ro-0", 7L, "ro-1", 10L, "ro2-0", 0L));

        // --all-groups: every group, the group column in the table and the CSV
        ok(cli.run("groups", "reset-offsets", "--group", "g-ro-2", "--topic", "ro2", "--to-latest", "--execute"));
        Cli.Result all = cli.run("groups", "reset-offsets", "--all-groups", "--topic", "ro2", "--to-earliest", "--dry-run",
            "--export");
        ok(all);
        assertThat(all.outLines()).contains("g-ro,ro2,0,0", "g-ro-2,ro2,0,0");
        JsonNode allJson = cli.json("groups", "reset-offsets", "--all-groups", "--topic", "ro2", "--to-earliest", "--execute");
        List<String> groups = new ArrayList<>();
        allJson.get("groups").forEach(g -> groups.add(g.get("group").asText()));
        assertThat(groups).contains("g-ro", "g-ro-2");
        assertThat(allJson.get("skipped")).isEmpty();
        assertThat(committed("g-ro-2")).containsEntry("ro2-0", 0L);
        Path perGroup = tmp.resolve("per-group.csv");
        Files.writeString(perGroup, "g-ro,ro2,0,3\ng-ro-2,ro2,0,1\n", StandardCharsets.UTF_8);
        ok(cli.run("groups", "reset-offsets", "--all-groups", "--from-file", perGroup.toString(), "--execute"));
        assertThat(committed("g-ro")).containsEntry("ro2-0", 3L);
        assertThat(committed("g-ro-2")).containsEntry("ro2-0", 1L);

        // a client file written for kafka-clients: its deserializer classes do not reach the command's own consumer
        Path kafkaFile = tmp.resolve("kafka-client.properties");
        Files.writeString(kafkaFile, "security.protocol=PLAINTEXT\nschema.registry.url=http://registry.example:8081\n"
            + "key.deserializer=org.apache.kafka.common.serialization.StringDeserializer\n"
            + "value.deserializer=org.apache.kafka.common.serialization.StringDeserializer\n", StandardCharsets.UTF_8);
        Cli.Result withFile = cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro", "--to-latest", "--dry-run",
            "--export", "--command-config", kafkaFile.toString());
        ok(withFile);
        assertThat(withFile.out()).isEqualTo("ro,0,10\nro,1,10\n");

        // refused values (exit 1) and command lines that do not parse (exit 2)
        assertOneErrorLine(cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "nowhere", "--to-earliest",
            "--dry-run"), "nowhere");
        assertOneErrorLine(cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro:7", "--to-earliest",
            "--dry-run"), "no partition 7");
        assertOneErrorLine(cli.run("groups", "reset-offsets", "--group", "g-new", "--topic", "ro", "--shift-by", "1",
            "--dry-run"), "no committed offset to shift");
        assertOneErrorLine(cli.run("groups", "reset-offsets", "--group", "g-new", "--all-topics", "--to-earliest",
            "--dry-run"), "no committed offsets");
        Files.writeString(plan, "ro,zero,1\n", StandardCharsets.UTF_8);
        assertOneErrorLine(cli.run("groups", "reset-offsets", "--group", "g-ro", "--from-file", plan.toString(), "--dry-run"),
            "line 1");
        assertUsage(cli.run("groups", "reset-offsets", "--group", "g-ro", "--all-groups", "--topic", "ro", "--to-earliest",
            "--dry-run"), "exactly one of --group and --all-groups");
        assertUsage(cli.run("groups", "reset-offsets", "--group", "g-ro", "--to-earliest", "--dry-run"), "--all-topics");
        assertUsage(cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro", "--all-topics", "--to-earliest",
            "--dry-run"), "--all-topics");
        assertUsage(cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro", "--from-file", plan.toString(),
            "--dry-run"), "--from-file");
        assertUsage(cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro", "--by-duration", "an hour",
            "--dry-run"), "PnDTnHnMnS");
        assertUsage(cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro", "--to-earliest", "--to-latest",
            "--dry-run"), "mutually exclusive");
        assertUsage(cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro", "--to-earliest", "--dry-run",
            "--export", "--output", "json"), "--export");
        assertUsage(cli.run("groups", "reset-offsets", "--group", "g-ro", "--topic", "ro:x", "--to-earliest", "--dry-run"),
            "not a partition number");
    }

    @Test
    void describeMembersAndStateOfAnEmptyAndALiveGroup() throws Exception {
        ok(cli.run("topics", "create", "--topic", "members", "--partitions", "3", "--replication-factor", "3"));
        ok(cli.run("groups", "reset-offsets", "--group", "g-idle", "--topic", "members", "--to-earliest", "--execute"));
        JsonNode idle = cli.json("groups", "describe", "--group", "g-idle", "--state");
        assertThat(idle.get("state").asText()).isEqualTo("Empty");
        assertThat(idle.get("memberCount").asInt()).isZero();
        assertThat(cli.json("groups", "describe", "--group", "g-idle", "--members").get("members")).isEmpty();

        try (RaftlineConsumer<String, String> member = new RaftlineConsumer<>(cluster.clientProperties("group.id", "g-live",
            "client.id", "live-one"), new StringDeserializer(), new StringDeserializer())) {
            member.subscribe(List.of("members"));
            TestCluster.await(() -> {
                member.poll(Duration.ofMillis(100));
                return member.assignment().size() == 3;
            }, SETTLE, "the one member to own every partition");
            JsonNode state = cli.json("groups", "describe", "--group", "g-live", "--state");
            assertThat(state.get("state").asText()).isEqualTo("Stable");
            assertThat(state.get("memberCount").asInt()).isEqualTo(1);
            assertThat(state.get("coordinator").asInt()).isPositive();
            assertThat(state.get("protocol").asText()).isNotEmpty();
            JsonNode members = cli.json("groups", "describe", "--group", "g-live", "--members").get("members");
            assertThat(members).hasSize(1);
            assertThat(members.get(0).get("clientId").asText()).isEqualTo("live-one");
            assertThat(members.get(0).get("partitions").asInt()).isEqualTo(3);
            Cli.Result table = cli.run("groups", "describe", "--group", "g-live", "--members");
            ok(table);
            CliOperationsIT.assertAligned(table.out(), "GROUP", "MEMBER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "ASSIGNMENT");
            assertThat(table.outLines().get(1)).contains("live-one").endsWith("members(0,1,2)");
            Cli.Result stateTable = cli.run("groups", "describe", "--group", "g-live", "--state");
            ok(stateTable);
            CliOperationsIT.assertAligned(stateTable.out(), "GROUP", "COORDINATOR", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS");
            assertThat(stateTable.outLines().get(1)).contains("Stable");

            assertOneErrorLine(cli.run("groups", "reset-offsets", "--group", "g-live", "--topic", "members", "--to-earliest",
                "--execute"), "active member(s)");
            JsonNode skipped = JSON.readTree(cli.run("groups", "reset-offsets", "--all-groups", "--topic", "members",
                "--to-earliest", "--dry-run", "--output", "json").out());
            assertThat(skipped.get("skipped").toString()).contains("g-live");
            assertOneErrorLine(cli.run("groups", "reset-offsets", "--all-groups", "--topic", "members", "--to-earliest",
                "--dry-run"), "g-live");
        }
        assertUsage(cli.run("groups", "describe", "--group", "g-idle", "--members", "--state"), "not both");
        assertOneErrorLine(cli.run("groups", "describe", "--group", "no-such-group", "--state"), "no-such-group");
    }

    @Test
    void consoleProducerAndConsumerSpeakKafkasProperties() throws Exception {
        ok(cli.run("topics", "create", "--topic", "console-kafka", "--partitions", "1", "--replication-factor", "3"));
        assertUsage(cli.runWithInput("x\n", "produce", "--topic", "console-kafka", "--output", "json"), "--output json");
        assertUsage(cli.run("consume", "--topic", "console-kafka", "--output", "json"), "--formatter json");

        Cli.Result produced = cli.runWithInput("trace:42,src:web\tk1\tv1\n\tk2\tv2\nno-delimiters\n", "produce", "--topic",
            "console-kafka", "--property", "parse.headers=true", "--property", "parse.key=true", "--report-acks");
        assertThat(produced.exitCode()).as(produced.toString()).isEqualTo(1);
        assertThat(produced.outLines()).hasSize(2);
        assertThat(produced.err().strip()).isEqualTo("error: no headers delimiter '\\t' in the line: no-delimiters");
        ok(cli.runWithInput("k3|v3\n", "produce", "--topic", "console-kafka", "--property", "parse.key=true", "--property",
            "key.separator=|"));
        assertUsage(cli.runWithInput("", "produce", "--topic", "console-kafka", "--key-separator", ":", "--property",
            "parse.key=true"), "not both");
        assertUsage(cli.runWithInput("", "produce", "--topic", "console-kafka", "--property", "parse.kye=true"), "parse.kye");

        Cli.Result lines = cli.run("consume", "--topic", "console-kafka", "--from-beginning", "--max-messages", "3",
            "--timeout-ms", "20000", "--property", "print.timestamp=true", "--property", "print.partition=true",
            "--property", "print.offset=true", "--property", "print.headers=true", "--property", "print.key=true");
        ok(lines);
        assertThat(lines.outLines()).hasSize(3);
        assertThat(lines.outLines().get(0)).matches("CreateTime:\\d{13}\t0\t0\ttrace:42,src:web\tk1\tv1");
        assertThat(lines.outLines().get(1)).matches("CreateTime:\\d{13}\t0\t1\tNO_HEADERS\tk2\tv2");
        assertThat(lines.outLines().get(2)).matches("CreateTime:\\d{13}\t0\t2\tNO_HEADERS\tk3\tv3");

        Cli.Result asJson = cli.run("consume", "--topic", "console-kafka", "--from-beginning", "--max-messages", "3",
            "--timeout-ms", "20000", "--formatter", "json");
        ok(asJson);
        assertThat(asJson.outLines()).hasSize(3);
        JsonNode r0 = JSON.readTree(asJson.outLines().get(0));
        assertThat(r0.get("topic").asText()).isEqualTo("console-kafka");
        assertThat(r0.get("partition").asInt()).isZero();
        assertThat(r0.get("offset").asLong()).isZero();
        assertThat(r0.get("timestamp").asLong()).isPositive();
        assertThat(r0.get("key").asText()).isEqualTo("k1");
        assertThat(r0.get("value").asText()).isEqualTo("v1");
        assertThat(r0.get("headers").toString()).isEqualTo("[{\"key\":\"trace\",\"value\":\"42\"},{\"key\":\"src\",\"value\":\"web\"}]");

        Cli.Result hex = cli.run("consume", "--topic", "console-kafka", "--from-beginning", "--max-messages", "3",
            "--timeout-ms", "20000", "--value-format", "hex", "--print-key");
        ok(hex);
        HexFormat h = HexFormat.of();
        assertThat(hex.outLines()).containsExactly(
            List.of("k1", "k2", "k3").stream().map(k -> h.formatHex(k.getBytes(StandardCharsets.UTF_8)) + "\t"
                + h.formatHex(("v" + k.charAt(1)).getBytes(StandardCharsets.UTF_8))).collect(Collectors.toList())
                .toArray(new String[0]));
        Cli.Result base64 = cli.run("consume", "--topic", "console-kafka", "--from-beginning", "--max-messages", "1",
            "--timeout-ms", "20000", "--formatter", "json", "--value-format", "base64");
        ok(base64);
        assertThat(JSON.readTree(base64.out()).get("value").asText()).isEqualTo("djE=");

        assertUsage(cli.run("consume", "--topic", "console-kafka", "--property", "print.timestmap=true"), "print.timestmap");
        assertUsage(cli.run("consume", "--topic", "console-kafka", "--formatter", "xml"), "default or json");
        assertUsage(cli.run("consume", "--topic", "console-kafka", "--value-format", "rot13"), "rot13");
    }

    @Test
    void logDirsDescribeShowsEveryReplicaWhereItLives() throws Exception {
        ok(cli.run("topics", "create", "--topic", "dirs", "--partitions", "2", "--replication-factor", "3"));
        produce("dirs", 0, 5);
        List<Integer> ids = cluster.nodes().stream().map(TestNode::id).sorted().toList();
        TestCluster.await(() -> {
            JsonNode doc = cli.json("log-dirs", "describe", "--topic-list", "dirs");
            int lagging = 0;
            for (JsonNode b : doc.get("brokers")) {
                for (JsonNode d : b.get("logDirs")) {
                    for (JsonNode p : d.get("partitions")) {
                        lagging += p.get("offsetLag").isNull() || p.get("offsetLag").asLong() != 0 ? 1 : 0;
                    }
                }
            }
            return lagging == 0;
        }, SETTLE, "every replica of 'dirs' to catch up");
        JsonNode doc = cli.json("log-dirs", "describe", "--topic-list", "dirs");
        assertThat(doc.get("version").asInt()).isEqualTo(1);
        List<Integer> brokers = new ArrayList<>();
        for (JsonNode b : doc.get("brokers")) {
            brokers.add(b.get("broker").asInt());
            assertThat(b.get("error").isNull()).isTrue();
            assertThat(b.get("logDirs")).hasSize(1);
            JsonNode dir = b.get("logDirs").get(0);
            assertThat(Path.of(dir.get("logDir").asText())).startsWith(cluster.root().toAbsolutePath());
            List<String> partitions = new ArrayList<>();
            for (JsonNode p : dir.get("partitions")) {
                partitions.add(p.get("partition").asText());
                assertThat(p.get("isFuture").asBoolean()).isFalse();
                if (p.get("partition").asText().equals("dirs-0")) {
                    assertThat(p.get("size").asLong()).isPositive();
                }
            }
            assertThat(partitions).containsExactly("dirs-0", "dirs-1");
        }
        assertThat(brokers).isEqualTo(ids);

        JsonNode one = cli.json("log-dirs", "describe", "--broker", Integer.toString(ids.get(0)), "--topic-list", "dirs");
        assertThat(one.get("brokers")).hasSize(1);
        Cli.Result table = cli.run("log-dirs", "describe", "--topic-list", "dirs");
        ok(table);
        assertThat(table.outLines()).hasSize(1 + 2 * ids.size());
        CliOperationsIT.assertAligned(table.out(), "BROKER", "LOG-DIR", "TOPIC", "PARTITION", "SIZE", "OFFSET-LAG", "LEADER");
        assertOneErrorLine(cli.run("log-dirs", "describe", "--broker", "999"), "999");
    }
}
