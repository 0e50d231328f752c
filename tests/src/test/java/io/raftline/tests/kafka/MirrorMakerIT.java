package io.raftline.tests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.tests.cluster.TestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The migration path of docs/migrating-from-kafka.md ("Moving data"): MirrorMaker 2 in its dedicated mode
 * ({@code org.apache.kafka.connect.mirror.MirrorMaker}, what {@code connect-mirror-maker.sh} runs, as its own process)
 * with the guide's own mm2.properties, copying a topic and a group's committed offsets from an Apache Kafka 4.4.0 node
 * (started here from Maven Central's jars) into Raftline through its Kafka listener. The group's offsets are checked
 * for what MirrorMaker promises, an at-least-once hand-over: a translated offset is never beyond Kafka's, and the group
 * moved to Raftline reads every record it had not committed in Kafka (exact translation is not reached yet: the
 * offsets seen committed in Raftline stop short of Kafka's, so records are read again).
 */
@Timeout(300)
class MirrorMakerIT {

    private static final String TOPIC = "orders";
    private static final String GROUP = "billing";
    private static final int PARTITIONS = 3;

    @RegisterExtension
    static final KafkaListenerCluster RAFTLINE = new KafkaListenerCluster();

    private static Path dir;
    private static ApacheKafka.Node kafka;

    @BeforeAll
    static void startKafka() throws Exception {
        dir = Files.createTempDirectory("mirror-maker-");
        kafka = ApacheKafka.Node.start(dir.resolve("kafka"));
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.close();
        }
    }

    private record Rec(int partition, String key, String value, long timestamp, Map<String, String> headers) {
        static Rec of(ConsumerRecord<String, String> r) {
            Map<String, String> headers = new TreeMap<>();
            for (Header h : r.headers()) {
                headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
            }
            return new Rec(r.partition(), r.key(), r.value(), r.timestamp(), headers);
        }
    }

    @Test
    void mirrorMakerCopiesATopicAndAGroupsOffsetsFromKafkaIntoRaftline() throws Exception {
        long seed = Long.getLong("mirror.seed", System.nanoTime());
        System.out.println("MirrorMakerIT seed " + seed + " (rerun with -Dmirror.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        try (Admin source = Admin.create(Map.of("bootstrap.servers", kafka.bootstrap()))) {
            source.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)
                .configs(Map.of("retention.ms", "1209600000")))).all().get(60, TimeUnit.SECONDS);
        }
        // in Kafka: records the group consumes and commits, then records it has not consumed yet
        List<Rec> consumed = produce(kafka.bootstrap(), random, 0, 90);
        Map<TopicPartition, Long> committedInKafka = consumeAndCommit(kafka.bootstrap(), consumed.size());
        assertThat(committedInKafka.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(consumed.size());
        List<Rec> pending = produce(kafka.bootstrap(), random, 90, 30);

        Path log = dir.resolve("mirror-maker.log");
        Path config = mm2Properties();
        Process mm2 = ApacheKafka.startConnect(log, List.of("-Dlog4j2.configurationFile=" + ApacheKafka.infoToStdout(dir)),
            "org.apache.kafka.connect.mirror.MirrorMaker", config.toString());
        try {
            List<Rec> all = new ArrayList<>(consumed);
            all.addAll(pending);
            awaitMirrored(mm2, log, all);
            // records produced into Kafka while MirrorMaker runs follow
            List<Rec> later = produce(kafka.bootstrap(), random, 120, 30);
            all.addAll(later);
            pending.addAll(later);
            awaitMirrored(mm2, log, all);

            Admin target = RAFTLINE.admin();
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
            AdminCalls.eventually(() -> "1209600000".equals(AdminCalls.get(target.describeConfigs(List.of(resource)).all())
                .get(resource).get("retention.ms").value()), "retention.ms=1209600000 on " + TOPIC + " in Raftline");
            // the group's committed offsets, translated: in Raftline under the same group id, never beyond Kafka's
            TestCluster.await(() -> {
                assertThat(mm2.isAlive()).as("MirrorMaker is running\n" + ApacheKafka.tail(log, 60)).isTrue();
                return !committedIn(target).isEmpty();
            }, Duration.ofSeconds(60), "offsets of group " + GROUP + " committed in Raftline");
            Map<TopicPartition, Long> translated = committedIn(target);
            System.out.println("group " + GROUP + ": Kafka " + committedInKafka + ", Raftline " + translated);
            translated.forEach((tp, offset) -> assertThat(offset).as("translated offset of %s", tp)
                .isLessThanOrEqualTo(committedInKafka.get(tp)));
            assertThat(AdminCalls.get(target.listTopics().names())).contains("mm2-configs.kafka.internal",
                "mm2-offsets.kafka.internal", "mm2-status.kafka.internal", "mm2-offset-syncs.kafka.internal",
                "kafka.checkpoints.internal", "heartbeats");
            try (Admin source = Admin.create(Map.of("bootstrap.servers", kafka.bootstrap()))) {
                assertThat(source.listTopics().names().get(30, TimeUnit.SECONDS)).as("MirrorMaker wrote nothing into Kafka")
                    .containsExactly(TOPIC);
            }

            assertThat(ApacheKafka.stop(mm2, Duration.ofSeconds(60))).as("MirrorMaker stopped on SIGTERM").isTrue();
        } catch (Throwable t) {
            System.out.println(ApacheKafka.tail(log, 100));
            throw t;
        } finally {
            ApacheKafka.stop(mm2, Duration.ofSeconds(10));
        }

        // the group, moved to Raftline, reads every record it had not committed in Kafka (and perhaps some it had)
        List<Rec> read = new ArrayList<>();
        Properties cp = new Properties();
        cp.setProperty("bootstrap.servers", RAFTLINE.cluster().kafkaBootstrap());
        cp.setProperty("allow.auto.create.topics", "false");
        cp.setProperty("group.id", GROUP);
        cp.setProperty("auto.offset.reset", "earliest");
        cp.setProperty("enable.auto.commit", "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            TestCluster.await(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> read.add(Rec.of(r)));
                return read.containsAll(pending);
            }, Duration.ofSeconds(60), "the " + pending.size() + " records group " + GROUP + " had not committed in Kafka");
        }
        List<Rec> again = new ArrayList<>(read);
        again.removeAll(pending);
        assertThat(consumed).as("records read again are ones the group had read in Kafka").containsAll(again);
    }

    /** The guide's mm2.properties, with this test's addresses and 1 s intervals (instead of 60 s) appended. */
    private static Path mm2Properties() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "migrating-from-kafka.md"), StandardCharsets.UTF_8);
        int section = doc.indexOf("## Moving data");
        int start = doc.indexOf("```properties\n", section) + "```properties\n".length();
        String guide = doc.substring(start, doc.indexOf("```", start));
        assertThat(guide).contains("replication.policy.class = org.apache.kafka.connect.mirror.IdentityReplicationPolicy");
        String properties = guide
            .replaceAll("(?m)^kafka\\.bootstrap\\.servers = .*$", "kafka.bootstrap.servers = " + kafka.bootstrap())
            .replaceAll("(?m)^raftline\\.bootstrap\\.servers = .*$",
                "raftline.bootstrap.servers = " + RAFTLINE.cluster().kafkaBootstrap())
            + String.join("\n", "# MirrorMakerIT: shorter intervals than the defaults (60 s)",
                "kafka->raftline.emit.checkpoints.interval.seconds = 1", "kafka->raftline.sync.group.offsets.interval.seconds = 1",
                "kafka->raftline.emit.heartbeats.interval.seconds = 1", "offset.flush.interval.ms = 1000", "");
        Path file = dir.resolve("mm2.properties");
        Files.writeString(file, properties);
        System.out.println("mm2.properties:\n" + properties);
        return file;
    }

    /** Waits until Raftline's copy of the topic holds exactly these records, partition by partition, in order. */
    private static void awaitMirrored(Process mm2, Path log, List<Rec> expected) throws Exception {
        Map<Integer, List<Rec>> want = byPartition(expected);
        Map<Integer, List<Rec>> got = new TreeMap<>();
        TestCluster.await(() -> {
            assertThat(mm2.isAlive()).as("MirrorMaker is running\n" + ApacheKafka.tail(log, 60)).isTrue();
            try {
                got.clear();
                got.putAll(byPartition(readAll(RAFTLINE.cluster().kafkaBootstrap())));
                return got.values().stream().mapToInt(List::size).sum() >= expected.size();
            } catch (Exception e) {
                return false;    // not created yet
            }
        }, Duration.ofSeconds(90), expected.size() + " records mirrored into " + TOPIC);
        assertThat(got).isEqualTo(want);
        assertThat(AdminCalls.get(RAFTLINE.admin().describeTopics(List.of(TOPIC)).allTopicNames()).get(TOPIC).partitions())
            .hasSize(PARTITIONS);
    }

    private static Map<Integer, List<Rec>> byPartition(List<Rec> records) {
        return records.stream().collect(Collectors.groupingBy(Rec::partition, TreeMap::new, Collectors.toList()));
    }

    /** Every record of the topic from its beginning; none until it has {@link #PARTITIONS} partitions. */
    private static List<Rec> readAll(String bootstrap) throws Exception {
        Properties cp = new Properties();
        cp.setProperty("bootstrap.servers", bootstrap);
        cp.setProperty("enable.auto.commit", "false");
        cp.setProperty("allow.auto.create.topics", "false");    // MirrorMaker creates it
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (var info : consumer.partitionsFor(TOPIC, Duration.ofSeconds(10))) {
                tps.add(new TopicPartition(TOPIC, info.partition()));
            }
            if (tps.size() != PARTITIONS) {
                return List.of();    // not created yet (or wrongly: the caller checks the topic's partitions)
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(10));
            List<Rec> out = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> out.add(Rec.of(r)));
            }
            return out;
        }
    }

    /** {@code count} keyed records with two headers and seeded timestamps, acknowledged by the source; returned in order. */
    private static List<Rec> produce(String bootstrap, SplittableRandom random, int first, int count) throws Exception {
        Properties pp = new Properties();
        pp.setProperty("bootstrap.servers", bootstrap);
        pp.setProperty("acks", "all");
        pp.setProperty("max.in.flight.requests.per.connection", "1");
        List<Rec> out = new ArrayList<>();
        // within the last hour: older records would fall out of the topic's retention (14 days) in Kafka and Raftline
        long base = java.time.Instant.now().toEpochMilli() - 3_600_000L + random.nextLong(600_000L);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
            for (int i = first; i < first + count; i++) {
                String key = "customer-" + random.nextInt(12);
                String value = "order-" + i + "-" + Long.toHexString(random.nextLong());
                long timestamp = base + i * 1000L + random.nextInt(1000);
                ProducerRecord<String, String> record = new ProducerRecord<>(TOPIC, null, timestamp, key, value);
                record.headers().add("source", "kafka".getBytes(StandardCharsets.UTF_8));
                record.headers().add("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                int partition = producer.send(record).get(30, TimeUnit.SECONDS).partition();
                out.add(new Rec(partition, key, value, timestamp, Map.of("seq", Integer.toString(i), "source", "kafka")));
            }
        }
        return out;
    }

    /** Reads {@code count} records as group {@link #GROUP} in Kafka, commits, and returns the committed offsets. */
    private static Map<TopicPartition, Long> consumeAndCommit(String bootstrap, int count) {
        Properties cp = new Properties();
        cp.setProperty("bootstrap.servers", bootstrap);
        cp.setProperty("group.id", GROUP);
        cp.setProperty("auto.offset.reset", "earliest");
        cp.setProperty("enable.auto.commit", "false");
        Map<TopicPartition, Long> next = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            int[] read = {0};
            TestCluster.await(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    next.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
                    read[0]++;
                }
                return read[0] >= count;
            }, Duration.ofSeconds(60), count + " records for group " + GROUP + " in Kafka");
            consumer.commitSync(next.entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> new OffsetAndMetadata(e.getValue()))));
        }
        return next;
    }

    private static Map<TopicPartition, Long> committedIn(Admin admin) {
        try {
            return AdminCalls.get(admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata()).entrySet().stream()
                .filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
        } catch (Exception e) {
            return Map.of();
        }
    }
}
