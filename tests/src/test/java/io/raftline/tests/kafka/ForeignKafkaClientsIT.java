package io.raftline.tests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.DebianPackages;
import io.raftline.tests.cluster.TestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kafka clients that no one here wrote, as real processes against the brokers' Kafka listeners: confluent-kafka for
 * Python (librdkafka, Debian's package) and kafkajs (pure JavaScript, from the npm registry). Each script (under
 * {@code src/test/resources/kafka-clients/}) produces keyed records at acks=all with idempotence and consumes them in
 * a group that commits; this class checks what the script reports against what kafka-clients reads back, and the
 * group's committed offsets through Kafka's Admin and {@code raftline groups describe}.
 */
@Timeout(300)
class ForeignKafkaClientsIT {

    /** The kafkajs release tested ({@code npm view kafkajs version} on 2026-12-04). */
    static final String KAFKAJS_VERSION = "2.2.4";
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 30;
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final KafkaListenerCluster KAFKA = new KafkaListenerCluster();

    @Test
    void confluentKafkaForPythonProducesAndConsumesInAGroup() throws Exception {
        Optional<String> missing = DebianPackages.ensureFiles(List.of("/usr/bin/python3",
            "/usr/lib/python3/dist-packages/confluent_kafka/__init__.py"), "python3", "python3-confluent-kafka");
        Assumptions.assumeTrue(missing.isEmpty(), () -> "confluent-kafka: " + missing.orElse(""));
        String topic = "py-keyed";
        String group = "g-python";
        createTopic(topic);
        // Debian's python3, not one earlier on PATH (pyenv), since that is where the package is installed
        Kcat.Result run = Kcat.run(null, 120, "/usr/bin/python3", script("confluent_kafka_client.py").toString(),
            KAFKA.cluster().kafkaBootstrap(), topic, group, Integer.toString(RECORDS));
        ClientReport report = ClientReport.parse(run);

        checkDeliveredAndConsumed(report, topic, Map.of("i", ClientReport.INDEX));
        checkCommitted(topic, group, report.perPartition());
    }

    @Test
    void kafkajsProducesWithHeadersAndConsumesInAGroup() throws Exception {
        Optional<String> missing = DebianPackages.ensure(List.of("/usr/bin/node", "/usr/bin/npm"), "nodejs", "npm");
        Assumptions.assumeTrue(missing.isEmpty(), () -> "kafkajs: " + missing.orElse(""));
        Path modules = installKafkajs();
        String topic = "js-keyed";
        String group = "g-kafkajs";
        createTopic(topic);
        Kcat.Result run = Kcat.run(null, 120, "/usr/bin/env", "NODE_PATH=" + modules, "KAFKAJS_NO_PARTITIONER_WARNING=1",
            "/usr/bin/node", script("kafkajs_client.js").toString(), KAFKA.cluster().kafkaBootstrap(), topic, group,
            Integer.toString(RECORDS));
        ClientReport report = ClientReport.parse(run);

        // kafkajs 2's default partitioner is the Java client's: murmur2 of the key
        report.delivered().forEach((key, at) -> assertThat(at.partition()).as(key)
            .isEqualTo(Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS));
        checkDeliveredAndConsumed(report, topic, Map.of("i", ClientReport.INDEX, "client", key -> "kafkajs"));
        checkCommitted(topic, group, report.perPartition());
    }

    /** {@code npm install kafkajs@KAFKAJS_VERSION} under target/, once; returns the node_modules folder. */
    private static Path installKafkajs() throws Exception {
        Path prefix = Path.of("target", "kafkajs-" + KAFKAJS_VERSION).toAbsolutePath();
        Path modules = prefix.resolve("node_modules");
        if (!Files.exists(modules.resolve("kafkajs").resolve("package.json"))) {
            Files.createDirectories(prefix);
            Kcat.Result npm = Kcat.run(null, 300, "/usr/bin/npm", "install", "--prefix", prefix.toString(), "--no-audit",
                "--no-fund", "--no-save", "kafkajs@" + KAFKAJS_VERSION);
            assertThat(npm.exitCode()).as("npm install kafkajs@%s: %s", KAFKAJS_VERSION, npm.err()).isZero();
        }
        JsonNode pkg = JSON.readTree(modules.resolve("kafkajs").resolve("package.json").toFile());
        assertThat(pkg.get("version").asText()).isEqualTo(KAFKAJS_VERSION);
        return modules;
    }

    private static Path script(String name) throws Exception {
        return Path.of(ForeignKafkaClientsIT.class.getResource("/kafka-clients/" + name).toURI());
    }

    private static void createTopic(String name) throws Exception {
        KAFKA.createTopic(name, PARTITIONS, 3);
    }

    /**
     * Every record acknowledged once, at consecutive offsets from 0 in each partition in the order sent (one
     * idempotent producer); kafka-clients reads each at the position the client was told, with its key, value and
     * headers; the client's group consumer read each exactly once with the same.
     */
    private static void checkDeliveredAndConsumed(ClientReport report, String topic,
        Map<String, java.util.function.Function<String, String>> headers) {
        assertThat(report.delivered().keySet()).containsExactlyInAnyOrderElementsOf(ClientReport.keys(RECORDS));
        Map<Integer, List<Long>> offsetsInSendOrder = new TreeMap<>();
        for (int i = 0; i < RECORDS; i++) {
            ClientReport.At at = report.delivered().get("k" + i);
            offsetsInSendOrder.computeIfAbsent(at.partition(), p -> new ArrayList<>()).add(at.offset());
        }
        offsetsInSendOrder.forEach((p, offsets) -> {
            for (int o = 0; o < offsets.size(); o++) {
                assertThat(offsets.get(o)).as("partition %d, record %d sent there", p, o).isEqualTo(o);
            }
        });
        assertThat(offsetsInSendOrder).as("keys spread over partitions").hasSizeGreaterThan(1);

        List<ConsumerRecord<String, String>> read = readAllWithKafka(topic, RECORDS);
        assertThat(read).hasSize(RECORDS);
        for (ConsumerRecord<String, String> r : read) {
            ClientReport.At at = report.delivered().get(r.key());
            assertThat(at).as("record read at %d@%d", r.partition(), r.offset()).isNotNull();
            assertThat(new ClientReport.At(r.partition(), r.offset())).as(r.key()).isEqualTo(at);
            assertThat(r.value()).isEqualTo("v" + r.key().substring(1));
            Map<String, String> got = new HashMap<>();
            r.headers().forEach(h -> got.put(h.key(), new String(h.value(), StandardCharsets.UTF_8)));
            Map<String, String> want = new HashMap<>();
            headers.forEach((name, value) -> want.put(name, value.apply(r.key())));
            assertThat(got).as("headers of %s", r.key()).isEqualTo(want);
        }

        assertThat(report.consumed()).hasSize(RECORDS);
        Map<String, JsonNode> consumedByKey = new HashMap<>();
        for (JsonNode c : report.consumed()) {
            String key = c.get("key").asText();
            assertThat(consumedByKey.put(key, c)).as("%s consumed twice", key).isNull();
            assertThat(new ClientReport.At(c.get("partition").asInt(), c.get("offset").asLong())).as(key)
                .isEqualTo(report.delivered().get(key));
            assertThat(c.get("value").asText()).isEqualTo("v" + key.substring(1));
            headers.forEach((name, value) -> assertThat(c.get("headers").get(name).asText()).as("header %s of %s", name, key)
                .isEqualTo(value.apply(key)));
        }
    }

    /** The group committed the end of each partition, seen through Kafka's Admin and through the CLI. */
    private static void checkCommitted(String topic, String group, Map<Integer, Long> ends) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = KAFKA.admin().listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        Map<Integer, Long> byPartition = new TreeMap<>();
        committed.forEach((tp, o) -> {
            assertThat(tp.topic()).isEqualTo(topic);
            byPartition.put(tp.partition(), o.offset());
        });
        assertThat(byPartition).isEqualTo(ends);

        JsonNode described = new Cli(KAFKA.cluster().bootstrap()).json("groups", "describe", "--group", group);
        assertThat(described.get("members")).as("the client left the group").isEmpty();
        Map<Integer, Long> listed = new TreeMap<>();
        described.get("offsets").forEach(o -> {
            assertThat(o.get("lag").asLong()).isZero();
            listed.put(o.get("partition").asInt(), o.get("committed").asLong());
        });
        assertThat(listed).isEqualTo(ends);
    }

    private static List<ConsumerRecord<String, String>> readAllWithKafka(String topic, int count) {
        Properties c = new Properties();
        c.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        c.setProperty("enable.auto.commit", "false");
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> all = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                all.add(new TopicPartition(topic, p));
            }
            consumer.assign(all);
            consumer.seekToBeginning(all);
            TestCluster.await(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
                return out.size() >= count;
            }, Duration.ofSeconds(60), count + " records through kafka-clients from " + topic);
            // nothing more than what the client wrote
            consumer.poll(Duration.ofMillis(200)).forEach(out::add);
        }
        return out;
    }

    /** What a client script printed: one JSON object per line, {@code delivered} and {@code consumed} events. */
    private record ClientReport(Map<String, At> delivered, List<JsonNode> consumed) {

        record At(int partition, long offset) {
        }

        /** The value of header {@code i}: the record's index, as its key {@code kN} names it. */
        static final java.util.function.Function<String, String> INDEX = key -> key.substring(1);

        static List<String> keys(int count) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                keys.add("k" + i);
            }
            return keys;
        }

        static ClientReport parse(Kcat.Result run) throws Exception {
            assertThat(run.exitCode()).as("client exit; stderr: %s%nstdout: %s", run.err(), run.out()).isZero();
            Map<String, At> delivered = new HashMap<>();
            List<JsonNode> consumed = new ArrayList<>();
            boolean done = false;
            for (String line : run.out().strip().split("\n")) {
                JsonNode event = JSON.readTree(line);
                switch (event.get("event").asText()) {
                    case "delivered" -> assertThat(delivered.put(event.get("key").asText(),
                        new At(event.get("partition").asInt(), event.get("offset").asLong()))).as("acknowledged twice: %s", line)
                        .isNull();
                    case "consumed" -> consumed.add(event);
                    case "done" -> done = true;
                    default -> throw new AssertionError("unexpected line: " + line);
                }
            }
            assertThat(done).as("the client finished; stderr: %s", run.err()).isTrue();
            return new ClientReport(delivered, consumed);
        }

        /** Records per partition: the end offset of each partition the records went to. */
        Map<Integer, Long> perPartition() {
            Map<Integer, Long> ends = new TreeMap<>();
            delivered.values().forEach(at -> ends.merge(at.partition(), 1L, Long::sum));
            return ends;
        }
    }
}
