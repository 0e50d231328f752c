package io.raftline.tests.kafka;

import static io.raftline.tests.kafka.AdminCalls.eventually;
import static io.raftline.tests.kafka.AdminCalls.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.tests.cluster.TestCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Apache Kafka's own command-line tools (org.apache.kafka:kafka-tools 4.4.0, run as real processes with
 * {@code java -cp}) against the Kafka listeners of one 3-node cluster: TopicCommand creates, describes and grows a
 * topic, ConfigCommand changes and describes its configs, ConsumerGroupCommand describes a group, resets its offsets,
 * deletes some of them and deletes the group, TransactionsCommand lists a partition's producers, ConsoleProducer and
 * ConsoleConsumer carry keyed records, every record VerifiableProducer saw acknowledged is among those
 * VerifiableConsumer reads in a group, ProducerPerformance and ConsumerPerformance run; each change is then read back
 * with kafka-clients' Admin or the Raftline SDK. The tools' jars come
 * from tests/kafka-bench (Maven Central, cached in ~/.cache/raftline-bench), fetched when missing as ApacheKafka does.
 */
@Timeout(300)
class KafkaToolsIT {

    private static Path libs;
    private static final String TOPIC = "tools-orders";

    private static TestCluster cluster;
    private static Admin admin;

    private record Run(int exitCode, String output) {
    }

    @BeforeAll
    static void start() throws Exception {
        fetchTools();
        cluster = TestCluster.builder().combined(3).groupTesting(3).heap("-Xmx256m").start();
        admin = AdminCalls.admin(cluster);
    }

    @AfterAll
    static void stop() {
        AdminCalls.close(admin, cluster);
    }

    /** Kafka 4.4.0's tools with their dependencies, fetched into the bench cache when missing (ApacheKafka.home). */
    private static void fetchTools() throws Exception {
        libs = ApacheKafka.home().resolve("libs");
        assertThat(libs.resolve("kafka-tools-4.4.0.jar")).exists();
    }

    private static Run tool(String mainClass, String... args) throws IOException, InterruptedException {
        return toolWithInput("", mainClass, args);
    }

    /** Runs a tool with {@code input} on its standard input (closed after it). */
    private static Run toolWithInput(String input, String mainClass, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m", "-cp", libs + "/*", mainClass, "--bootstrap-server", cluster.kafkaBootstrap()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try (java.io.OutputStream stdin = p.getOutputStream()) {
            stdin.write(input.getBytes(StandardCharsets.UTF_8));
        }
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(mainClass + " " + String.join(" ", args) + " did not end within 120 s");
        }
        Run run = new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        System.out.println("$ " + mainClass + " " + String.join(" ", args) + " -> " + run.exitCode() + "\n" + run.output());
        return run;
    }

    private static Run topics(String... args) throws Exception {
        return tool("org.apache.kafka.tools.TopicCommand", args);
    }

    private static Run configs(String... args) throws Exception {
        return tool("org.apache.kafka.tools.ConfigCommand", args);
    }

    private static Run groups(String... args) throws Exception {
        return tool("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", args);
    }

    private static void ok(Run r) {
        assertThat(r.exitCode()).as(r.output()).isZero();
    }

    private static int partitionsOverGrpc(String topic) throws Exception {
        return cluster.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
            .partitions().size();
    }

    @Test
    void topicAndConfigCommandsCreateDescribeGrowAndConfigureATopic() throws Exception {
        ok(topics("--create", "--topic", TOPIC, "--partitions", "2", "--replication-factor", "3"));
        eventually(() -> partitionsOverGrpc(TOPIC) == 2, "the topic with 2 partitions over gRPC");
        Run described = topics("--describe", "--topic", TOPIC);
        ok(described);
        assertThat(described.output()).contains("PartitionCount: 2").contains("ReplicationFactor: 3");

        ok(topics("--alter", "--topic", TOPIC, "--partitions", "4"));
        eventually(() -> partitionsOverGrpc(TOPIC) == 4, "4 partitions over gRPC");
        eventually(() -> topics("--describe", "--topic", TOPIC).output().contains("PartitionCount: 4"),
            "TopicCommand describes 4 partitions");
        Run shrink = topics("--alter", "--topic", TOPIC, "--partitions", "3");
        assertThat(shrink.exitCode()).as(shrink.output()).isNotZero();
        assertThat(shrink.output()).contains("partitions only grow");
        assertThat(partitionsOverGrpc(TOPIC)).isEqualTo(4);

        ok(configs("--entity-type", "topics", "--entity-name", TOPIC, "--alter", "--add-config", "retention.ms=4242000"));
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
        eventually(() -> "4242000".equals(get(admin.describeConfigs(List.of(resource)).all()).get(resource)
            .get("retention.ms").value()), "retention.ms=4242000 described by kafka-clients");
        Run describedConfigs = configs("--entity-type", "topics", "--entity-name", TOPIC, "--describe");
        ok(describedConfigs);
        assertThat(describedConfigs.output()).contains("retention.ms=4242000");
        Run bad = configs("--entity-type", "topics", "--entity-name", TOPIC, "--alter", "--add-config", "retention.ms=soon");
        assertThat(bad.exitCode()).as(bad.output()).isNotZero();
        assertThat(get(admin.describeConfigs(List.of(resource)).all()).get(resource).get("retention.ms").value())
            .isEqualTo("4242000");
        ok(configs("--entity-type", "topics", "--entity-name", TOPIC, "--alter", "--delete-config", "retention.ms"));
        eventually(() -> !configs("--entity-type", "topics", "--entity-name", TOPIC, "--describe").output()
            .contains("retention.ms=4242000"), "retention.ms no longer set on the topic");
    }

    private static Map<TopicPartition, Long> committed(String group) throws Exception {
        Map<TopicPartition, Long> out = new java.util.HashMap<>();
        get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()).forEach((tp, o) -> out.put(tp, o.offset()));
        return out;
    }

    @Test
    void consumerGroupCommandDeletesOffsetsOfATopicTheGroupDoesNotRead() throws Exception {
        String read = "tools-od-read";
        String other = "tools-od-other";
        String group = "tools-od-group";
        ok(topics("--create", "--topic", read, "--partitions", "1", "--replication-factor", "3"));
        ok(topics("--create", "--topic", other, "--partitions", "2", "--replication-factor", "3"));
        eventually(() -> partitionsOverGrpc(other) == 2 && partitionsOverGrpc(read) == 1, "both topics over gRPC");
        TopicPartition read0 = new TopicPartition(read, 0);
        TopicPartition other0 = new TopicPartition(other, 0);
        TopicPartition other1 = new TopicPartition(other, 1);
        Properties cp = new Properties();
        cp.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        cp.setProperty("group.id", group);
        cp.setProperty("enable.auto.commit", "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(read));
            TestCluster.await(() -> {
                consumer.poll(Duration.ofMillis(200));
                return !consumer.assignment().isEmpty();
            }, AdminCalls.WAIT, "the consumer holds " + read + "-0");
            consumer.commitSync(Map.of(read0, new OffsetAndMetadata(2), other0, new OffsetAndMetadata(3),
                other1, new OffsetAndMetadata(4)));

            Run refused = groups("--delete-offsets", "--group", group, "--topic", read);
            assertThat(refused.output()).containsIgnoringCase("subscribed");
            assertThat(committed(group)).isEqualTo(Map.of(read0, 2L, other0, 3L, other1, 4L));

            Run deleted = groups("--delete-offsets", "--group", group, "--topic", other + ":1");
            ok(deleted);
            assertThat(deleted.output()).containsPattern(other + "\\s+1\\s+Successful");
            assertThat(committed(group)).isEqualTo(Map.of(read0, 2L, other0, 3L));
        }
        ok(groups("--delete-offsets", "--group", group, "--topic", read));
        assertThat(committed(group)).isEqualTo(Map.of(other0, 3L));
        Run described = groups("--describe", "--group", group);
        assertThat(described.output()).contains(other).doesNotContain(read);
    }

    @Test
    void transactionsCommandDescribesAPartitionsProducers() throws Exception {
        String topic = "tools-producers";
        ok(topics("--create", "--topic", topic, "--partitions", "1", "--replication-factor", "3"));
        Properties pp = new Properties();
        pp.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        pp.setProperty("enable.idempotence", "true");
        pp.setProperty("acks", "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        TopicPartition tp = new TopicPartition(topic, 0);
        List<org.apache.kafka.clients.admin.ProducerState> active = get(admin.describeProducers(List.of(tp)).partitionResult(tp))
            .activeProducers();
        assertThat(active).hasSize(1);
        assertThat(active.get(0).lastSequence()).isEqualTo(4);
        Run described = tool("org.apache.kafka.tools.TransactionsCommand", "describe-producers", "--topic", topic,
            "--partition", "0");
        ok(described);
        assertThat(described.output()).contains("ProducerId").contains("LastSequence")
            .containsPattern("(?m)^" + active.get(0).producerId() + "\\s+0\\s+\\S+\\s+4\\s");
    }

    @Test
    void consumerGroupCommandDescribesResetsAndDeletesAGroup() throws Exception {
        String topic = "tools-grouped";
        String group = "tools-group";
        ok(topics("--create", "--topic", topic, "--partitions", "1", "--replication-factor", "3"));
        Properties pp = new Properties();
        pp.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        TopicPartition tp = new TopicPartition(topic, 0);
        Properties cp = new Properties();
        cp.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        cp.setProperty("group.id", group);
        cp.setProperty("enable.auto.commit", "false");
        cp.setProperty("auto.offset.reset", "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            List<Object> read = new ArrayList<>();
            TestCluster.await(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
                return read.size() >= 10;
            }, AdminCalls.WAIT, "10 records");
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(10)));
        }

        Run described = groups("--describe", "--group", group);
        ok(described);
        assertThat(described.output()).contains(topic).containsPattern(topic + "\\s+0\\s+10\\s+10\\s+0");

        ok(groups("--reset-offsets", "--group", group, "--topic", topic, "--to-earliest", "--execute"));
        assertThat(get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()).get(tp).offset()).isZero();
        assertThat(get(admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all()).get(tp).offset()).isEqualTo(10);

        Run missing = groups("--delete", "--group", "no-such-group");
        assertThat(missing.output()).contains("no-such-group").containsIgnoringCase("does not exist");
        ok(groups("--delete", "--group", group));
        assertThat(get(admin.listGroups().all())).noneMatch(g -> g.groupId().equals(group));
        assertThat(get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata())).isEmpty();
    }

    /** ConsoleProducer reads keyed lines from stdin; ConsoleConsumer prints them back with their partitions and offsets. */
    @Test
    void consoleProducerAndConsumerCarryKeyedRecords() throws Exception {
        String topic = "tools-console";
        ok(topics("--create", "--topic", topic, "--partitions", "1", "--replication-factor", "3"));
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            lines.append("key-").append(i).append(':').append("value ").append(i).append('\n');
        }
        ok(toolWithInput(lines.toString(), "org.apache.kafka.tools.ConsoleProducer", "--topic", topic,
            "--reader-property", "parse.key=true", "--reader-property", "key.separator=:",
            "--producer-property", "acks=all"));
        Run consumed = tool("org.apache.kafka.tools.consumer.ConsoleConsumer", "--topic", topic, "--from-beginning",
            "--max-messages", "20", "--timeout-ms", "60000", "--formatter-property", "print.key=true",
            "--formatter-property", "print.offset=true", "--formatter-property", "key.separator=|");
        ok(consumed);
        for (int i = 0; i < 20; i++) {
            assertThat(consumed.output()).contains("Offset:" + i + "|key-" + i + "|value " + i);
        }
        assertThat(consumed.output()).contains("Processed a total of 20 messages");
    }

    /**
     * VerifiableProducer at acks=all and VerifiableConsumer in a group that commits, with their own bookkeeping: every
     * record the producer saw acknowledged (partition, offset) is among those the consumer read, and the consumer's
     * last commit per partition is the end of the partition.
     */
    @Test
    void everyRecordVerifiableProducerSawAcknowledgedIsReadByVerifiableConsumer() throws Exception {
        String topic = "tools-verifiable";
        int records = 1000;
        ok(topics("--create", "--topic", topic, "--partitions", "3", "--replication-factor", "3"));
        Run produced = tool("org.apache.kafka.tools.VerifiableProducer", "--topic", topic, "--max-messages",
            String.valueOf(records), "--acks", "-1");
        ok(produced);
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        java.util.Set<String> acked = new java.util.HashSet<>();
        Map<Integer, Long> ends = new java.util.HashMap<>();
        for (String line : produced.output().lines().filter(l -> l.startsWith("{")).toList()) {
            com.fasterxml.jackson.databind.JsonNode event = json.readTree(line);
            if (event.path("name").asText().equals("producer_send_success")) {
                int partition = event.path("partition").asInt();
                long offset = event.path("offset").asLong();
                assertThat(acked.add(partition + "@" + offset)).as("acknowledged twice: %s@%s", partition, offset).isTrue();
                ends.merge(partition, offset + 1, Math::max);
            }
        }
        assertThat(acked).hasSize(records);

        Run consumed = tool("org.apache.kafka.tools.VerifiableConsumer", "--topic", topic, "--group-id", "tools-verifiable",
            "--max-messages", String.valueOf(records), "--reset-policy", "earliest");
        ok(consumed);
        java.util.Set<String> read = new java.util.HashSet<>();
        Map<Integer, Long> committed = new java.util.HashMap<>();
        for (String line : consumed.output().lines().filter(l -> l.startsWith("{")).toList()) {
            com.fasterxml.jackson.databind.JsonNode event = json.readTree(line);
            String name = event.path("name").asText();
            if (name.equals("records_consumed")) {
                for (com.fasterxml.jackson.databind.JsonNode part : event.path("partitions")) {
                    for (long o = part.path("minOffset").asLong(); o <= part.path("maxOffset").asLong(); o++) {
                        read.add(part.path("partition").asInt() + "@" + o);
                    }
                }
            } else if (name.equals("offsets_committed") && event.path("success").asBoolean()) {
                for (com.fasterxml.jackson.databind.JsonNode part : event.path("offsets")) {
                    committed.merge(part.path("partition").asInt(), part.path("offset").asLong(), Math::max);
                }
            }
        }
        assertThat(read).as("acknowledged records the consumer did not read").containsAll(acked);
        assertThat(committed).isEqualTo(ends);
    }

    /** Kafka's own perf tools, as the side-by-side script runs them with --protocol kafka, on a short run. */
    @Test
    void producerAndConsumerPerformanceRun() throws Exception {
        String topic = "tools-perf";
        ok(topics("--create", "--topic", topic, "--partitions", "3", "--replication-factor", "3"));
        Run produced = tool("org.apache.kafka.tools.ProducerPerformance", "--topic", topic, "--num-records", "20000",
            "--record-size", "1024", "--throughput", "-1", "--command-property", "acks=all");
        ok(produced);
        assertThat(produced.output()).containsPattern("20000 records sent, [\\d.]+ records/sec");
        Run consumed = tool("org.apache.kafka.tools.ConsumerPerformance", "--topic", topic, "--num-records", "20000",
            "--timeout", "60000", "--group", "tools-perf");
        ok(consumed);
        // start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, ...
        String row = consumed.output().lines().filter(l -> l.matches("^\\d{4}-\\d\\d-\\d\\d.*")).reduce((a, b) -> b)
            .orElseThrow(() -> new AssertionError("no result row:\n" + consumed.output()));
        assertThat(row.split(",")[4].trim()).isEqualTo("20000");
        assertThat(get(admin.listOffsets(Map.of(new TopicPartition(topic, 0), OffsetSpec.latest())).all())
            .get(new TopicPartition(topic, 0)).offset()).isPositive();
    }
}
