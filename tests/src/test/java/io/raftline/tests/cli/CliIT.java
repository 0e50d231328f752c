package io.raftline.tests.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every admin command against a real 3-node cluster (node processes; the CLI in-process), both outputs, the error paths. */
@Timeout(300)
class CliIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static TestCluster cluster;
    private static Cli cli;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).start();
        cli = new Cli(cluster.bootstrap());
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static JsonNode json(Cli.Result r) throws Exception {
        assertThat(r.exitCode()).as(r.toString()).isZero();
        return JSON.readTree(r.out());
    }

    @Test
    void createDescribeListDelete() throws Exception {
        JsonNode created = json(cli.run("topics", "create", "--topic", "cli-orders", "--partitions", "3",
            "--replication-factor", "3", "--config", "retention.ms=3600000", "--output", "json"));
        assertThat(created.get("ok").asBoolean()).isTrue();
        assertThat(created.get("partitions").asInt()).isEqualTo(3);

        JsonNode list = json(cli.run("topics", "list", "--output", "json"));
        List<String> names = new ArrayList<>();
        list.get("topics").forEach(t -> names.add(t.get("topic").asText()));
        assertThat(names).contains("cli-orders");

        JsonNode describe = json(cli.run("topics", "describe", "--topic", "cli-orders", "--output", "json"));
        JsonNode topic = describe.get("topics").get(0);
        assertThat(topic.get("topicId").asText()).hasSize(22);
        assertThat(topic.get("internal").asBoolean()).isFalse();
        assertThat(topic.get("partitions")).hasSize(3);
        for (JsonNode p : topic.get("partitions")) {
            assertThat(p.get("replicas")).hasSize(3);
            assertThat(p.get("leader").asInt()).isPositive();
            assertThat(p.has("osr")).isTrue();
            assertThat(p.get("highWatermark").isNumber()).isTrue();
        }

        Cli.Result table = cli.run("topics", "describe", "--topic", "cli-orders");
        assertThat(table.exitCode()).isZero();
        assertThat(table.out()).contains("TOPIC").contains("cli-orders");

        JsonNode configs = json(cli.run("configs", "describe", "--entity-type", "topic", "--entity-name", "cli-orders",
            "--output", "json"));
        boolean found = false;
        for (JsonNode c : configs.get("configs")) {
            if (c.get("name").asText().equals("retention.ms")) {
                assertThat(c.get("value").asText()).isEqualTo("3600000");
                assertThat(c.get("source").asText()).isEqualTo("topic");
                found = true;
            }
        }
        assertThat(found).isTrue();

        Cli.Result delete = cli.run("topics", "delete", "--topic", "cli-orders");
        assertThat(delete.exitCode()).as(delete.toString()).isZero();
        TestCluster.await(() -> !cli.run("topics", "list").out().contains("cli-orders"), Duration.ofSeconds(20),
            "the topic to disappear");
    }

    @Test
    void errorsAreOneLineAndExitCodesFollowTheContract() {
        Cli.Result first = cli.run("topics", "create", "--topic", "dup", "--partitions", "1");
        assertThat(first.exitCode()).as(first.toString()).isZero();
        Cli.Result dup = cli.run("topics", "create", "--topic", "dup", "--partitions", "1");
        assertThat(dup.exitCode()).isEqualTo(1);
        assertThat(dup.err()).startsWith("error: ").contains("already exists");
        assertThat(dup.err().lines().count()).isEqualTo(1);

        Cli.Result badName = cli.run("topics", "create", "--topic", "bad/name", "--partitions", "1");
        assertThat(badName.exitCode()).isEqualTo(1);
        assertThat(badName.err()).startsWith("error: ");

        Cli.Result zero = cli.run("topics", "create", "--topic", "zero", "--partitions", "0");
        assertThat(zero.exitCode()).isEqualTo(1);

        Cli.Result tooMany = cli.run("topics", "create", "--topic", "rf", "--partitions", "1", "--replication-factor", "9");
        assertThat(tooMany.exitCode()).isEqualTo(1);

        Cli.Result unknownFlag = cli.run("topics", "create", "--topic", "x", "--partitionz", "1");
        assertThat(unknownFlag.exitCode()).isEqualTo(2);

        Cli.Result wrongType = cli.run("topics", "create", "--topic", "x", "--partitions", "many");
        assertThat(wrongType.exitCode()).isEqualTo(2);

        Cli.Result unknownTopic = cli.run("topics", "describe", "--topic", "no-such-topic");
        assertThat(unknownTopic.exitCode()).isEqualTo(1);
        assertThat(unknownTopic.err()).startsWith("error: ");
    }

    @Test
    void unreachableClusterFailsWithinTheTimeout() throws Exception {
        java.nio.file.Path config = java.nio.file.Files.createTempFile("cli", ".properties");
        java.nio.file.Files.writeString(config, "default.api.timeout.ms=3000\n");
        long start = System.nanoTime();
        Cli.Result r = new Cli(null).run("topics", "list", "--bootstrap-server", "127.0.0.1:1",
            "--command-config", config.toString());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).startsWith("error: ");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
    }

    @Test
    void produceWithReportAcksThenConsume() {
        Cli.Result create = cli.run("topics", "create", "--topic", "console", "--partitions", "2", "--replication-factor", "3");
        assertThat(create.exitCode()).as(create.toString()).isZero();
        Cli.Result produced = cli.runWithInput("k1:alpha\nk2:beta\r\nnokey\nk1:gamma\n", "produce", "--topic", "console",
            "--key-separator", ":", "--report-acks");
        assertThat(produced.exitCode()).as(produced.toString()).isEqualTo(1);
        assertThat(produced.err()).contains("nokey");
        assertThat(produced.outLines()).hasSize(3);
        for (String line : produced.outLines()) {
            assertThat(line.split("\t")).hasSize(3);
        }
        assertThat(produced.out()).contains("\tk2:beta\n").doesNotContain("\r");

        Cli.Result consumed = cli.run("consume", "--topic", "console", "--from-beginning", "--max-messages", "3",
            "--print-key", "--timeout-ms", "20000");
        assertThat(consumed.exitCode()).as(consumed.toString()).isZero();
        assertThat(consumed.outLines()).containsExactlyInAnyOrder("k1\talpha", "k2\tbeta", "k1\tgamma");
        assertThat(consumed.err()).contains("Processed a total of 3 messages");
        // records with one key keep their order
        assertThat(consumed.out().indexOf("alpha")).isLessThan(consumed.out().indexOf("gamma"));
    }

    /** A client file written for kafka-clients: keys for other tools and plugins, Kafka's serializer classes. */
    private static final String KAFKA_CLIENT_FILE = String.join("\n",
        "security.protocol=PLAINTEXT",
        "schema.registry.url=http://registry.example:8081",
        "basic.auth.credentials.source=USER_INFO",
        "key.serializer=org.apache.kafka.common.serialization.StringSerializer",
        "value.serializer=org.apache.kafka.common.serialization.StringSerializer",
        "key.deserializer=org.apache.kafka.common.serialization.StringDeserializer",
        "value.deserializer=org.apache.kafka.common.serialization.StringDeserializer",
        "acks=all",
        "linger.ms=1",
        "auto.offset.reset=earliest",
        "request.timeout.ms=20000",
        "") + "\n";

    @Test
    void aKafkaClientPropertiesFileWorksWithEveryKindOfCommand() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("kafka-client", ".properties");
        java.nio.file.Files.writeString(file, KAFKA_CLIENT_FILE);
        String cfg = file.toString();
        List<String[]> commands = List.of(
            new String[] {"topics", "create", "--topic", "kafka-file", "--partitions", "1", "--replication-factor", "3"},
            new String[] {"topics", "list"},
            new String[] {"topics", "describe", "--topic", "kafka-file"},
            new String[] {"configs", "describe", "--entity-type", "topic", "--entity-name", "kafka-file"},
            new String[] {"brokers", "list"},
            new String[] {"quorum", "status"},
            new String[] {"groups", "list"},
            new String[] {"perf", "produce", "--topic", "kafka-file", "--num-records", "50", "--record-size", "10",
                "--throughput", "-1"});
        for (String[] command : commands) {
            List<String> args = new ArrayList<>(List.of(command));
            args.add("--command-config");
            args.add(cfg);
            Cli.Result r = cli.run(args.toArray(new String[0]));
            assertThat(r.exitCode()).as(String.join(" ", command) + ": " + r).isZero();
        }
        Cli.Result produced = cli.runWithInput("from-a-kafka-file\n", "produce", "--topic", "kafka-file",
            "--command-config", cfg);
        assertThat(produced.exitCode()).as(produced.toString()).isZero();
        Cli.Result consumed = cli.run("consume", "--topic", "kafka-file", "--from-beginning", "--max-messages", "51",
            "--timeout-ms", "20000", "--command-config", cfg);
        assertThat(consumed.exitCode()).as(consumed.toString()).isZero();
        assertThat(consumed.outLines()).hasSize(51).contains("from-a-kafka-file");
    }

    @Test
    void aKnownKeyWithABadValueInTheFileIsOneErrorLine() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("bad-client", ".properties");
        java.nio.file.Files.writeString(file, KAFKA_CLIENT_FILE + "request.timeout.ms=soon\n");
        Cli.Result r = cli.run("topics", "list", "--command-config", file.toString());
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.err()).as(r.toString())
            .isEqualTo("error: invalid value 'soon' for config key 'request.timeout.ms': expected an integer\n");
    }

    @Test
    void quorumStatusAndBrokers() throws Exception {
        JsonNode quorum = json(cli.run("quorum", "status", "--output", "json"));
        assertThat(quorum.get("leaderId").asInt()).isPositive();
        assertThat(quorum.get("voters")).hasSize(3);
        assertThat(quorum.has("commitIndex")).isTrue();

        JsonNode brokers = json(cli.run("brokers", "list", "--output", "json"));
        assertThat(brokers.get("brokers")).hasSize(3);
        for (JsonNode b : brokers.get("brokers")) {
            assertThat(b.get("state").asText()).isEqualTo("active");
        }
    }

    @Test
    void helpAndVersion() {
        Cli.Result help = cli.run("--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("topics").contains("dev").contains("server");
        Cli.Result version = cli.run("--version");
        assertThat(version.out()).startsWith("raftline ");
    }
}
