package io.raftline.tests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.tests.cluster.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The long kafka-clients matrix behind {@code ./raftline test --system} (KafkaClientsIT is its short version in the
 * default run): every acks setting with every codec, with and without idempotence, each run's records read back in
 * order with their keys at the offsets the producer was told; and a group of three consumers, each polling on its own
 * thread as applications do, with each of Kafka's assignors, reading every record once per partition owner and
 * committing the end. Values are seeded (the seed is printed; {@code -Dmatrix.seed=N} repeats a run).
 */
@Tag("system")
@Timeout(600)
class KafkaClientMatrixIT {

    private static final int RECORDS = 3000;
    private static final int PARTITIONS = 3;
    private static final long SEED = Long.getLong("matrix.seed", System.nanoTime());

    @RegisterExtension
    static final KafkaListenerCluster KAFKA = new KafkaListenerCluster();

    static Stream<Arguments> producers() {
        List<Arguments> out = new ArrayList<>();
        for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
            for (String acks : List.of("0", "1", "all")) {
                out.add(Arguments.of(acks, codec, false));
            }
            out.add(Arguments.of("all", codec, true));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "acks={0} compression={1} idempotence={2}")
    @MethodSource("producers")
    void everyProducerSettingIsReadBackInOrder(String acks, String codec, boolean idempotent) throws Exception {
        System.out.println("KafkaClientMatrixIT seed " + SEED + " (-Dmatrix.seed to repeat)");
        String topic = "matrix-" + acks + "-" + codec + (idempotent ? "-idem" : "");
        KAFKA.createTopic(topic, PARTITIONS, 3);
        SplittableRandom random = new SplittableRandom(SEED ^ topic.hashCode());
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        p.setProperty("acks", acks);
        p.setProperty("compression.type", codec);
        p.setProperty("enable.idempotence", String.valueOf(idempotent));
        p.setProperty("linger.ms", "5");
        List<String> values = new ArrayList<>();
        Map<TopicPartition, List<Long>> offsets = new ConcurrentHashMap<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                // compressible and not: a run of one letter, then random digits
                String value = "v" + i + "-" + "x".repeat(random.nextInt(200)) + random.nextLong();
                values.add(value);
                sent.add(producer.send(new ProducerRecord<>(topic, "k" + i, value)));
            }
            for (Future<RecordMetadata> f : sent) {
                RecordMetadata md = f.get(60, TimeUnit.SECONDS);
                offsets.computeIfAbsent(new TopicPartition(topic, md.partition()), tp -> new ArrayList<>()).add(md.offset());
            }
        }
        Properties c = new Properties();
        c.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        Map<TopicPartition, List<ConsumerRecord<String, String>>> read = new ConcurrentHashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> all = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) {
                all.add(new TopicPartition(topic, i));
            }
            consumer.assign(all);
            consumer.seekToBeginning(all);
            TestCluster.await(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> read.computeIfAbsent(new TopicPartition(r.topic(),
                    r.partition()), tp -> new ArrayList<>()).add(r));
                return read.values().stream().mapToInt(List::size).sum() >= RECORDS;
            }, Duration.ofSeconds(120), RECORDS + " records of " + topic);
        }
        assertThat(read.values().stream().mapToInt(List::size).sum()).isEqualTo(RECORDS);
        for (Map.Entry<TopicPartition, List<ConsumerRecord<String, String>>> e : read.entrySet()) {
            long previous = -1;
            int previousIndex = -1;
            for (ConsumerRecord<String, String> r : e.getValue()) {
                int index = Integer.parseInt(r.key().substring(1));
                assertThat(r.value()).isEqualTo(values.get(index));
                assertThat(r.offset()).isGreaterThan(previous);
                assertThat(index).as("records of one partition keep the order they were sent in").isGreaterThan(previousIndex);
                previous = r.offset();
                previousIndex = index;
            }
            if (!acks.equals("0")) {
                // at acks=0 the producer is not told offsets (-1); otherwise they are where the records are
                assertThat(e.getValue().stream().map(ConsumerRecord::offset).toList())
                    .isEqualTo(offsets.get(e.getKey()).stream().sorted().toList());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"org.apache.kafka.clients.consumer.RangeAssignor",
        "org.apache.kafka.clients.consumer.RoundRobinAssignor", "org.apache.kafka.clients.consumer.StickyAssignor",
        "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"})
    void threeConsumersOnTheirOwnThreadsShareAGroupWithEachAssignor(String assignor) throws Exception {
        String name = assignor.substring(assignor.lastIndexOf('.') + 1).toLowerCase(java.util.Locale.ROOT);
        String topic = "group-" + name;
        String group = "matrix-" + name;
        int partitions = 6;
        KAFKA.createTopic(topic, partitions, 3);
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        p.setProperty("acks", "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, "k" + i, "v" + i));
            }
            producer.flush();
        }
        Map<String, Set<TopicPartition>> owned = new ConcurrentHashMap<>();
        Map<String, Set<TopicPartition>> settled = new ConcurrentHashMap<>();
        Set<String> seen = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService threads = Executors.newFixedThreadPool(3);
        List<Future<?>> members = new ArrayList<>();
        try {
            for (int m = 0; m < 3; m++) {
                String member = "m" + m;
                members.add(threads.submit(() -> {
                    Properties cp = new Properties();
                    cp.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
                    cp.setProperty("group.id", group);
                    cp.setProperty("auto.offset.reset", "earliest");
                    cp.setProperty("enable.auto.commit", "false");
                    cp.setProperty("partition.assignment.strategy", assignor);
                    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(),
                        new StringDeserializer())) {
                        consumer.subscribe(List.of(topic));
                        while (!stop.get()) {
                            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                                assertThat(r.value()).isEqualTo("v" + r.key().substring(1));
                                seen.add(r.partition() + "@" + r.offset());
                            }
                            try {
                                consumer.commitSync();
                            } catch (org.apache.kafka.clients.consumer.CommitFailedException
                                     | org.apache.kafka.common.errors.RebalanceInProgressException e) {
                                continue; // a rebalance is under way: commit after the next poll
                            }
                            owned.put(member, Set.copyOf(consumer.assignment()));
                        }
                    }
                    return null;
                }));
            }
            TestCluster.await(() -> {
                Map<String, Set<TopicPartition>> now = Map.copyOf(owned);
                Set<TopicPartition> union = new java.util.HashSet<>();
                now.values().forEach(union::addAll);
                if (seen.size() == RECORDS && now.size() == 3 && now.values().stream().noneMatch(Set::isEmpty)
                    && union.size() == partitions && now.values().stream().mapToInt(Set::size).sum() == partitions) {
                    settled.putAll(now);
                    return true;
                }
                return false;
            }, Duration.ofSeconds(120), "three members holding the six partitions between them, every record read");
        } finally {
            stop.set(true);
            for (Future<?> f : members) {
                f.get(60, TimeUnit.SECONDS);
            }
            threads.shutdownNow();
        }
        System.out.println(assignor + ": " + settled);
        Map<TopicPartition, OffsetAndMetadata> committed = KAFKA.admin().listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        assertThat(committed).hasSize(partitions);
        committed.values().forEach(o -> assertThat(o.offset()).isEqualTo(RECORDS / partitions));
    }
}
