package io.raftline.tests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Apache Kafka's own Java client (kafka-clients 4.4) against the brokers' Kafka listeners, and the same topics read and
 * written by the Raftline SDK over gRPC: one cluster, two protocols, the same offsets, keys, values, headers and
 * timestamps with every codec.
 */
@Timeout(300)
class KafkaClientsIT {

    private static final int RECORDS = 200;
    private static final long BASE_TIMESTAMP = 1_700_000_000_000L;

    @RegisterExtension
    static final KafkaListenerCluster KAFKA = new KafkaListenerCluster();

    private static void createTopic(String name, int partitions, int replicationFactor) throws Exception {
        KAFKA.createTopic(name, partitions, replicationFactor);
    }

    @Test
    void adminCreatesDescribesAndDeletesTopics() throws Exception {
        createTopic("kafka-admin", 3, 3);
        assertThat(KAFKA.admin().listTopics().names().get(30, TimeUnit.SECONDS)).contains("kafka-admin");
        TestCluster.await(() -> {
            try {
                TopicDescription d = KAFKA.admin().describeTopics(List.of("kafka-admin")).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get("kafka-admin");
                return d.partitions().size() == 3 && d.partitions().stream().allMatch(p -> p.leader() != null
                    && p.replicas().size() == 3 && p.isr().size() == 3);
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(30), "3 partitions with a leader and 3 in-sync replicas each");
        // The same topic through gRPC: one KAFKA.cluster().
        assertThat(KAFKA.cluster().admin().listTopics().names().get(30, TimeUnit.SECONDS)).contains("kafka-admin");

        org.apache.kafka.common.config.ConfigResource resource =
            new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.TOPIC, "kafka-admin");
        org.apache.kafka.clients.admin.Config config = KAFKA.admin().describeConfigs(List.of(resource)).all()
            .get(30, TimeUnit.SECONDS).get(resource);
        assertThat(config.get("cleanup.policy").value()).isEqualTo("delete");
        assertThat(config.get("cleanup.policy").source())
            .isEqualTo(org.apache.kafka.clients.admin.ConfigEntry.ConfigSource.DEFAULT_CONFIG);

        java.util.Collection<org.apache.kafka.common.Node> nodes = KAFKA.admin().describeCluster().nodes().get(30, TimeUnit.SECONDS);
        assertThat(nodes).extracting(org.apache.kafka.common.Node::port).containsExactlyInAnyOrderElementsOf(
            KAFKA.cluster().nodes().stream().map(io.raftline.tests.cluster.TestNode::kafkaPort).toList());
        assertThat(KAFKA.admin().describeCluster().clusterId().get(30, TimeUnit.SECONDS)).isEqualTo(KAFKA.cluster().clusterId());

        KAFKA.admin().deleteTopics(List.of("kafka-admin")).all().get(60, TimeUnit.SECONDS);
        TestCluster.await(() -> {
            try {
                return !KAFKA.admin().listTopics().names().get(30, TimeUnit.SECONDS).contains("kafka-admin");
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(30), "the topic gone");
    }

    /**
     * kafka-clients' idempotent producer at acks=all writes; kafka-clients' consumer and the Raftline SDK's consumer
     * both read back every record at the offset it was acknowledged at. Then the other way round: the SDK writes,
     * kafka-clients reads.
     */
    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void bothProtocolsSeeTheSameRecords(String codec) throws Exception {
        String topic = "kc-" + codec;
        createTopic(topic, 1, 3);

        Properties p = new Properties();
        p.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        p.setProperty("acks", "all");
        p.setProperty("enable.idempotence", "true");
        p.setProperty("compression.type", codec);
        p.setProperty("linger.ms", "5");
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                ProducerRecord<String, String> r = new ProducerRecord<>(topic, 0, BASE_TIMESTAMP + i, "k" + i, "v" + i,
                    List.of(new RecordHeader("h", Integer.toString(i).getBytes(StandardCharsets.UTF_8))));
                acks.add(producer.send(r));
            }
        }
        for (int i = 0; i < RECORDS; i++) {
            assertThat(acks.get(i).get(30, TimeUnit.SECONDS).offset()).isEqualTo(i);
        }

        List<ConsumerRecord<String, String>> kafkaRead = readWithKafka(topic, RECORDS);
        for (int i = 0; i < RECORDS; i++) {
            ConsumerRecord<String, String> r = kafkaRead.get(i);
            assertThat(r.offset()).isEqualTo(i);
            assertThat(r.key()).isEqualTo("k" + i);
            assertThat(r.value()).isEqualTo("v" + i);
            assertThat(r.timestamp()).isEqualTo(BASE_TIMESTAMP + i);
            assertThat(new String(r.headers().lastHeader("h").value(), StandardCharsets.UTF_8)).isEqualTo(Integer.toString(i));
        }

        List<io.raftline.client.consumer.ConsumerRecord<String, String>> sdkRead = readWithSdk(topic, RECORDS);
        for (int i = 0; i < RECORDS; i++) {
            io.raftline.client.consumer.ConsumerRecord<String, String> r = sdkRead.get(i);
            assertThat(r.offset()).as(codec).isEqualTo(i);
            assertThat(r.key()).isEqualTo("k" + i);
            assertThat(r.value()).isEqualTo("v" + i);
            assertThat(r.timestamp()).isEqualTo(BASE_TIMESTAMP + i);
            assertThat(new String(r.headers().lastHeader("h").value(), StandardCharsets.UTF_8)).isEqualTo(Integer.toString(i));
        }

        // The other way round: the SDK writes over gRPC (offsets RECORDS.. 2*RECORDS-1), kafka-clients reads.
        Properties sp = KAFKA.cluster().clientProperties("acks", "all", "compression.type", codec, "linger.ms", "5");
        List<Future<io.raftline.client.producer.RecordMetadata>> sdkAcks = new ArrayList<>();
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(sp, new io.raftline.client.common.serialization
            .StringSerializer(), new io.raftline.client.common.serialization.StringSerializer())) {
            for (int i = RECORDS; i < 2 * RECORDS; i++) {
                sdkAcks.add(producer.send(new io.raftline.client.producer.ProducerRecord<>(topic, 0, BASE_TIMESTAMP + i,
                    "k" + i, "v" + i, List.of(new io.raftline.client.common.header.Header("h",
                        Integer.toString(i).getBytes(StandardCharsets.UTF_8))))));
            }
        }
        for (int i = 0; i < RECORDS; i++) {
            assertThat(sdkAcks.get(i).get(30, TimeUnit.SECONDS).offset()).isEqualTo(RECORDS + i);
        }
        List<ConsumerRecord<String, String>> all = readWithKafka(topic, 2 * RECORDS);
        for (int i = RECORDS; i < 2 * RECORDS; i++) {
            ConsumerRecord<String, String> r = all.get(i);
            assertThat(r.offset()).as(codec).isEqualTo(i);
            assertThat(r.key()).isEqualTo("k" + i);
            assertThat(r.value()).isEqualTo("v" + i);
            assertThat(r.timestamp()).isEqualTo(BASE_TIMESTAMP + i);
            assertThat(new String(r.headers().lastHeader("h").value(), StandardCharsets.UTF_8)).isEqualTo(Integer.toString(i));
        }
    }

    /**
     * Two kafka-clients consumers in one group, with Kafka's own assignor run by the group leader, share a topic's
     * partitions on Raftline's coordinator, read every record, and commit; the committed offsets are the same through
     * Kafka's Admin and through {@code raftline groups describe}.
     */
    @ParameterizedTest
    @ValueSource(strings = {"range", "cooperative-sticky"})
    void aGroupOfKafkaConsumersSharesTheWorkAndCommits(String assignor) throws Exception {
        String topic = "kg-" + assignor;
        String group = "g-" + assignor;
        int partitions = 4;
        int perPartition = 50;
        createTopic(topic, partitions, 3);
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        p.setProperty("acks", "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < partitions * perPartition; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, "k" + i, "v" + i));
            }
            producer.flush();
        }

        String strategy = assignor.equals("range") ? "org.apache.kafka.clients.consumer.RangeAssignor"
            : "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
        Map<TopicPartition, java.util.Set<Long>> seen = new java.util.concurrent.ConcurrentHashMap<>();
        List<KafkaConsumer<String, String>> consumers = new ArrayList<>();
        try {
            for (int c = 0; c < 2; c++) {
                Properties cp = new Properties();
                cp.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
                cp.setProperty("group.id", group);
                cp.setProperty("auto.offset.reset", "earliest");
                cp.setProperty("enable.auto.commit", "false");
                cp.setProperty("partition.assignment.strategy", strategy);
                KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp,
                    new org.apache.kafka.common.serialization.StringDeserializer(),
                    new org.apache.kafka.common.serialization.StringDeserializer());
                consumer.subscribe(List.of(topic));
                consumers.add(consumer);
            }
            TestCluster.await(() -> {
                for (KafkaConsumer<String, String> consumer : consumers) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        assertThat(r.value()).isEqualTo("v" + r.key().substring(1));
                        assertThat(Integer.parseInt(r.key().substring(1)) % partitions).isEqualTo(r.partition());
                        seen.computeIfAbsent(new TopicPartition(r.topic(), r.partition()),
                            tp -> java.util.concurrent.ConcurrentHashMap.newKeySet()).add(r.offset());
                    }
                }
                int total = seen.values().stream().mapToInt(java.util.Set::size).sum();
                // done once both hold partitions and each has read to the end of what it holds (so what it commits
                // is the end, whoever read the records before a cooperative hand-over)
                return total == partitions * perPartition
                    && consumers.stream().allMatch(c -> !c.assignment().isEmpty()
                        && c.assignment().stream().allMatch(tp -> c.position(tp, Duration.ofSeconds(10)) == perPartition));
            }, Duration.ofSeconds(90), "both consumers assigned and every record read");
            java.util.Set<TopicPartition> union = new java.util.HashSet<>();
            for (KafkaConsumer<String, String> consumer : consumers) {
                for (TopicPartition tp : consumer.assignment()) {
                    assertThat(union.add(tp)).as("%s assigned twice", tp).isTrue();
                }
                consumer.commitSync(Duration.ofSeconds(30));
            }
            assertThat(union).hasSize(partitions);
        } finally {
            consumers.forEach(c -> c.close(Duration.ofSeconds(10)));
        }
        for (int i = 0; i < partitions; i++) {
            assertThat(seen.get(new TopicPartition(topic, i))).hasSize(perPartition);
        }

        Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed =
            KAFKA.admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        assertThat(committed).hasSize(partitions);
        committed.values().forEach(o -> assertThat(o.offset()).isEqualTo(perPartition));

        com.fasterxml.jackson.databind.JsonNode described = new Cli(KAFKA.cluster().bootstrap())
            .json("groups", "describe", "--group", group);
        assertThat(described.get("members")).isEmpty();
        assertThat(described.get("offsets")).hasSize(partitions);
        described.get("offsets").forEach(o -> {
            assertThat(o.get("topic").asText()).isEqualTo(topic);
            assertThat(o.get("committed").asLong()).isEqualTo(perPartition);
            assertThat(o.get("lag").asLong()).isZero();
        });
    }

    /**
     * One group, two protocols: a kafka-clients consumer and a Raftline SDK consumer, both with the range assignor,
     * split a topic's partitions between them on one coordinator; {@code raftline groups describe} shows both members
     * with what each holds.
     */
    @Test
    void aKafkaConsumerAndAnSdkConsumerShareOneGroup() throws Exception {
        String topic = "mixed";
        String group = "g-mixed";
        int partitions = 4;
        int perPartition = 40;
        createTopic(topic, partitions, 3);
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < partitions * perPartition; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, "k" + i, "v" + i));
            }
            producer.flush();
        }
        Properties kp = new Properties();
        kp.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        kp.setProperty("group.id", group);
        kp.setProperty("auto.offset.reset", "earliest");
        kp.setProperty("enable.auto.commit", "false");
        kp.setProperty("partition.assignment.strategy", "org.apache.kafka.clients.consumer.RangeAssignor");
        java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        try (KafkaConsumer<String, String> kafka = new KafkaConsumer<>(kp, new org.apache.kafka.common.serialization
                .StringDeserializer(), new org.apache.kafka.common.serialization.StringDeserializer());
             RaftlineConsumer<String, String> sdk = new RaftlineConsumer<>(KAFKA.cluster().clientProperties("group.id", group,
                "auto.offset.reset", "earliest", "enable.auto.commit", "false", "partition.assignment.strategy", "range"),
                new StringDeserializer(), new StringDeserializer())) {
            kafka.subscribe(List.of(topic));
            sdk.subscribe(List.of(topic));
            TestCluster.await(() -> {
                kafka.poll(Duration.ofMillis(100)).forEach(r -> seen.add(r.partition() + "@" + r.offset()));
                sdk.poll(Duration.ofMillis(100)).forEach(r -> seen.add(r.partition() + "@" + r.offset()));
                return seen.size() == partitions * perPartition && !kafka.assignment().isEmpty() && !sdk.assignment().isEmpty();
            }, Duration.ofSeconds(90), "both consumers assigned and every record read");
            java.util.Set<Integer> held = new java.util.TreeSet<>();
            kafka.assignment().forEach(tp -> held.add(tp.partition()));
            sdk.assignment().forEach(tp -> assertThat(held.add(tp.partition())).as("partition %s held twice", tp).isTrue());
            assertThat(held).containsExactly(0, 1, 2, 3);

            com.fasterxml.jackson.databind.JsonNode described = new Cli(KAFKA.cluster().bootstrap())
                .json("groups", "describe", "--group", group);
            assertThat(described.get("state").asText()).isEqualTo("Stable");
            assertThat(described.get("members")).hasSize(2);
            java.util.Set<Integer> listed = new java.util.TreeSet<>();
            described.get("members").forEach(m -> m.get("assignment").forEach(a -> listed.add(a.get("partition").asInt())));
            assertThat(listed).containsExactly(0, 1, 2, 3);
        }
    }

    /**
     * kcat (librdkafka 2.0.2, Debian's) produces keyed records and consumes them back with their offsets, alone and as
     * a group member that commits; kafka-clients reads what kcat wrote.
     */
    @Test
    void kcatProducesAndConsumes() throws Exception {
        Optional<String> missing = Kcat.missing();
        Assumptions.assumeTrue(missing.isEmpty(), () -> "kcat: " + missing.orElse(""));
        String topic = "kcat";
        createTopic(topic, 1, 3);
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            lines.append("k").append(i).append(':').append("v").append(i).append('\n');
        }
        Kcat.Result produced = Kcat.kcat(lines.toString(), "-b", KAFKA.cluster().kafkaBootstrap(), "-t", topic, "-p", "0", "-P",
            "-K", ":", "-X", "acks=all");
        assertThat(produced.exitCode()).as(produced.err()).isZero();
        Kcat.Result consumed = Kcat.kcat(null, "-b", KAFKA.cluster().kafkaBootstrap(), "-t", topic, "-p", "0", "-C", "-o",
            "beginning", "-e", "-q", "-f", "%k=%s@%o\n");
        assertThat(consumed.exitCode()).as(consumed.err()).isZero();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.add("k" + i + "=v" + i + "@" + i);
        }
        assertThat(consumed.out().strip().lines().toList()).isEqualTo(expected);
        List<ConsumerRecord<String, String>> read = readWithKafka(topic, 20);
        for (int i = 0; i < 20; i++) {
            assertThat(read.get(i).key() + "=" + read.get(i).value() + "@" + read.get(i).offset()).isEqualTo(expected.get(i));
        }
        // librdkafka's balanced consumer in a group, committing as it goes; the group's offsets through the CLI
        Kcat.Result grouped = Kcat.kcat(null, "-b", KAFKA.cluster().kafkaBootstrap(), "-G", "g-kcat", "-o", "beginning", "-e", "-q",
            "-f", "%k=%s@%o\n", "-X", "auto.offset.reset=earliest", topic);
        assertThat(grouped.exitCode()).as(grouped.err()).isZero();
        assertThat(grouped.out().strip().lines().toList()).isEqualTo(expected);
        TestCluster.await(() -> {
            com.fasterxml.jackson.databind.JsonNode d = new Cli(KAFKA.cluster().bootstrap())
                .json("groups", "describe", "--group", "g-kcat");
            return d.get("offsets").size() == 1 && d.get("offsets").get(0).get("committed").asLong() == 20;
        }, Duration.ofSeconds(30), "kcat's group committed offset 20");
    }

    private static List<ConsumerRecord<String, String>> readWithKafka(String topic, int count) {
        Properties c = new Properties();
        c.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        c.setProperty("enable.auto.commit", "false");
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c,
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new org.apache.kafka.common.serialization.StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            TestCluster.await(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
                return out.size() >= count;
            }, Duration.ofSeconds(60), count + " records through kafka-clients from " + topic);
        }
        return out;
    }

    private static List<io.raftline.client.consumer.ConsumerRecord<String, String>> readWithSdk(String topic, int count) {
        List<io.raftline.client.consumer.ConsumerRecord<String, String>> out = new ArrayList<>();
        try (RaftlineConsumer<String, String> consumer = new RaftlineConsumer<>(KAFKA.cluster().clientProperties(
            "enable.auto.commit", "false"), new StringDeserializer(), new StringDeserializer())) {
            io.raftline.client.common.TopicPartition tp = new io.raftline.client.common.TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            TestCluster.await(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
                return out.size() >= count;
            }, Duration.ofSeconds(60), count + " records through the Raftline SDK from " + topic);
        }
        return out;
    }
}
