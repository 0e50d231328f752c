package io.raftline.tests.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.raftline.client.admin.Admin;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.header.Header;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.producer.ProducerInterceptor;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.client.producer.RecordMetadata;
import io.raftline.record.CompressionType;
import io.raftline.record.RecordBatch;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The producer against a real 3-node cluster (node processes, real sockets): linger and batch.size decide the stored
 * batches, keys land on Kafka's murmur2 partitions, every codec round-trips, interceptors run in order, and an
 * idempotent producer with five requests in flight keeps each partition exactly once and in order while its leader
 * is killed or paused under it.
 */
@Timeout(600)
class ProducerIT {

    private static TestCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3)
            .config("replica.lag.time.max.ms", "3000")
            .start();
        admin = cluster.admin();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Properties props(String... kv) {
        return cluster.clientProperties(kv);
    }

    private static Map<String, Object> config(String... kv) {
        Map<String, Object> m = new HashMap<>();
        props(kv).forEach((k, v) -> m.put((String) k, v));
        return m;
    }

    private static RaftlineConsumer<String, String> consumer() {
        return new RaftlineConsumer<>(props(), new StringDeserializer(), new StringDeserializer());
    }

    private static TestNode leaderOf(String topic, int partition) throws Exception {
        return cluster.node(SdkSupport.describe(admin, topic).get(partition).leader().id());
    }

    @Test
    void recordsSentWithinLingerTravelAsOneStoredBatch() throws Exception {
        String topic = "linger";
        SdkSupport.createTopic(admin, topic, 1, 3, Map.of());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(
            config("linger.ms", "3000", "batch.size", "1048576", "client.id", "linger"), new StringSerializer(), new StringSerializer(),
            registry)) {
            producer.partitionsFor(topic);
            for (int i = 0; i < 100; i++) {
                futures.add(producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)));
            }
            for (int i = 0; i < futures.size(); i++) {
                assertThat(futures.get(i).get(60, TimeUnit.SECONDS).offset()).isEqualTo(i);
            }
        }
        // The leader stored what the producer sent: one batch of the 100 records (the followers copy it as is).
        List<RecordBatch> stored = SdkSupport.storedBatches(leaderOf(topic, 0), topic, 0);
        assertThat(stored).hasSize(1);
        assertThat(stored.get(0).recordCount()).isEqualTo(100);
        assertThat(stored.get(0).baseOffset()).isZero();
        assertThat(registry.get("raftline.client.producer.batch.records").summary().count()).isEqualTo(1);
        assertThat(registry.get("raftline.client.producer.batch.records").summary().max()).isEqualTo(100.0);
    }

    @Test
    void aFullBatchGoesWithoutWaitingForLingerAndNoBatchExceedsBatchSize() throws Exception {
        String topic = "batch-size";
        SdkSupport.createTopic(admin, topic, 1, 3, Map.of());
        String value = "x".repeat(200);
        int batchSize = 2048;
        long start = System.nanoTime();
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(
            props("linger.ms", "60000", "batch.size", Integer.toString(batchSize)), new StringSerializer(), new StringSerializer())) {
            producer.partitionsFor(topic);
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                futures.add(producer.send(new ProducerRecord<>(topic, 0, null, value)));
            }
            // Every batch but the last is full, so it is sent long before linger.ms (60 s) would have sent it.
            futures.get(80).get(30, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(45));
            producer.flush();
        }
        List<RecordBatch> stored = SdkSupport.storedBatches(leaderOf(topic, 0), topic, 0);
        assertThat(stored.stream().mapToInt(RecordBatch::recordCount).sum()).isEqualTo(100);
        assertThat(stored).hasSizeGreaterThanOrEqualTo(10);
        assertThat(stored).allSatisfy(b -> assertThat(b.sizeInBytes()).isLessThanOrEqualTo(batchSize));
        assertThat(stored.subList(0, stored.size() - 1)).allSatisfy(b -> assertThat(b.sizeInBytes()).isGreaterThan(batchSize - 300));
    }

    /**
     * Keys and the partitions Apache Kafka's producer picks for them (kafka-clients 4.4.0,
     * {@code Utils.toPositive(Utils.murmur2(utf8(key))) % n}), computed once with the jar from ~/.cache/raftline-bench.
     */
    private static final Object[][] KAFKA_PLACEMENT = {
        {"user-0", 7, 5}, {"user-1", 8, 3}, {"user-2", 8, 0}, {"user-3", 11, 0}, {"user-4", 7, 3}, {"user-5", 10, 1},
        {"user-6", 5, 0}, {"user-7", 8, 2}, {"user-8", 9, 6}, {"user-9", 11, 6}, {"order-1001", 6, 1}, {"order-1002", 0, 1},
        {"order-1003", 4, 3}, {"σκύλος", 4, 1}, {"日本語のキー", 2, 0}, {"", 9, 2}, {"a", 4, 5}, {"emoji-\uD83D\uDE00", 4, 6},
        {"k".repeat(100), 4, 6}, {"tenant/42/device/7", 10, 0},
    };

    @Test
    void keyedRecordsLandOnTheSamePartitionsAsWithKafka() throws Exception {
        SdkSupport.createTopic(admin, "keys-12", 12, 1, Map.of());
        SdkSupport.createTopic(admin, "keys-7", 7, 1, Map.of());
        Map<String, Integer> sentTo = new HashMap<>();
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(props(), new StringSerializer(), new StringSerializer())) {
            for (Object[] row : KAFKA_PLACEMENT) {
                String key = (String) row[0];
                assertThat(producer.send(new ProducerRecord<>("keys-12", key, key)).get(60, TimeUnit.SECONDS).partition())
                    .as("partition of %s among 12", key).isEqualTo(row[1]);
                assertThat(producer.send(new ProducerRecord<>("keys-7", key, key)).get(60, TimeUnit.SECONDS).partition())
                    .as("partition of %s among 7", key).isEqualTo(row[2]);
                sentTo.put(key, (Integer) row[1]);
            }
        }
        // And the broker has them there.
        try (RaftlineConsumer<String, String> consumer = consumer()) {
            for (int p = 0; p < 12; p++) {
                int partition = p;
                List<String> keys = SdkSupport.readAll(consumer, new TopicPartition("keys-12", p), Duration.ofSeconds(60)).stream()
                    .map(ConsumerRecord::key).toList();
                assertThat(keys).containsExactlyInAnyOrderElementsOf(
                    sentTo.entrySet().stream().filter(e -> e.getValue() == partition).map(Map.Entry::getKey).toList());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void everyCodecRoundTrips(String codec) throws Exception {
        String topic = "codec-" + codec;
        SdkSupport.createTopic(admin, topic, 2, 3, Map.of());
        int count = 2_000;
        long baseTs = 1_700_000_000_000L;
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(props("compression.type", codec, "linger.ms", "20"),
            new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, i % 2, baseTs + i, "key-" + i, value(i),
                    List.of(new Header("h", ("header-" + i).getBytes(StandardCharsets.UTF_8)))));
            }
            producer.flush();
        }
        CompressionType expected = CompressionType.forName(codec);
        try (RaftlineConsumer<String, String> consumer = consumer()) {
            for (int p = 0; p < 2; p++) {
                List<RecordBatch> stored = SdkSupport.storedBatches(leaderOf(topic, p), topic, p);
                assertThat(stored).isNotEmpty().allSatisfy(b -> assertThat(b.compressionType()).isEqualTo(expected));
                if (expected != CompressionType.NONE) {
                    // Repetitive values: compressed batches are much smaller than the values they carry.
                    int storedBytes = stored.stream().mapToInt(RecordBatch::sizeInBytes).sum();
                    assertThat(storedBytes).isLessThan(count / 2 * value(0).length() / 2);
                }
                List<ConsumerRecord<String, String>> read = SdkSupport.readAll(consumer, new TopicPartition(topic, p),
                    Duration.ofSeconds(60));
                assertThat(read).hasSize(count / 2);
                for (int j = 0; j < read.size(); j++) {
                    int i = 2 * j + p;
                    ConsumerRecord<String, String> r = read.get(j);
                    assertThat(r.offset()).isEqualTo(j);
                    assertThat(r.key()).isEqualTo("key-" + i);
                    assertThat(r.value()).isEqualTo(value(i));
                    assertThat(r.timestamp()).isEqualTo(baseTs + i);
                    assertThat(new String(r.headers().lastHeader("h").value(), StandardCharsets.UTF_8)).isEqualTo("header-" + i);
                }
            }
        }
    }

    private static String value(int i) {
        return ("record " + i + " of a compressible payload; ").repeat(8);
    }

    /** Records every interceptor call, in order, for one test. */
    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    /** The first producer interceptor: tags the value. */
    public static final class First implements ProducerInterceptor<String, String> {
        @Override
        public ProducerRecord<String, String> onSend(ProducerRecord<String, String> record) {
            EVENTS.add("first.onSend " + record.value());
            return new ProducerRecord<>(record.topic(), record.partition(), record.key(), record.value() + "+first");
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
            EVENTS.add("first.onAck " + metadata.offset() + (exception == null ? "" : " " + exception));
        }
    }

    /** The second producer interceptor: sees what the first returned. */
    public static final class Second implements ProducerInterceptor<String, String> {
        @Override
        public ProducerRecord<String, String> onSend(ProducerRecord<String, String> record) {
            EVENTS.add("second.onSend " + record.value());
            return new ProducerRecord<>(record.topic(), record.partition(), record.key(), record.value() + "+second");
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
            EVENTS.add("second.onAck " + metadata.offset() + (exception == null ? "" : " " + exception));
        }
    }

    @Test
    void producerInterceptorsRunInConfiguredOrderAroundTheCallback() throws Exception {
        String topic = "intercepted";
        SdkSupport.createTopic(admin, topic, 1, 3, Map.of());
        EVENTS.clear();
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(
            props("interceptor.classes", First.class.getName() + "," + Second.class.getName()),
            new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 3; i++) {
                int n = i;
                producer.send(new ProducerRecord<>(topic, 0, null, "v" + i), (md, e) -> EVENTS.add("callback " + n)).get(60,
                    TimeUnit.SECONDS);
            }
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            expected.addAll(List.of("first.onSend v" + i, "second.onSend v" + i + "+first", "first.onAck " + i, "second.onAck " + i,
                "callback " + i));
        }
        assertThat(EVENTS).containsExactlyElementsOf(expected);
        try (RaftlineConsumer<String, String> consumer = consumer()) {
            assertThat(SdkSupport.readAll(consumer, new TopicPartition(topic, 0), Duration.ofSeconds(60)))
                .extracting(ConsumerRecord::value).containsExactly("v0+first+second", "v1+first+second", "v2+first+second");
        }
    }

    @Test
    void idempotentProducerKeepsOrderWithoutDuplicatesWhenTheLeaderIsKilled() throws Exception {
        orderedUnderLeaderFailure("ordered-kill", TestNode::kill);
    }

    @Test
    void idempotentProducerKeepsOrderWithoutDuplicatesWhenTheLeaderIsPaused() throws Exception {
        orderedUnderLeaderFailure("ordered-pause", TestNode::pause);
    }

    private interface Fault {
        void inject(TestNode node);
    }

    /**
     * Sends 0..N-1 as values to one partition, with max.in.flight=5 and small batches so that several requests are
     * unanswered when the leader goes away mid-stream; every record must be acknowledged, and the partition must hold
     * exactly 0..N-1, in order, once each.
     */
    private void orderedUnderLeaderFailure(String topic, Fault fault) throws Exception {
        SdkSupport.createTopic(admin, topic, 1, 3, Map.of("min.insync.replicas", "2"));
        int total = 20_000;
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AtomicInteger acked = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<Exception> firstError = new AtomicReference<>();
        long[] offsets = new long[total];
        TestNode victim = leaderOf(topic, 0);
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(
            config("acks", "all", "enable.idempotence", "true", "max.in.flight.requests.per.connection", "5", "batch.size", "4096",
                "linger.ms", "0", "request.timeout.ms", "5000", "delivery.timeout.ms", "180000", "retry.backoff.ms", "100",
                "client.id", topic),
            new StringSerializer(), new StringSerializer(), registry)) {
            for (int i = 0; i < total; i++) {
                int n = i;
                producer.send(new ProducerRecord<>(topic, 0, null, Integer.toString(i)), (md, e) -> {
                    if (e == null) {
                        offsets[n] = md.offset();
                        acked.incrementAndGet();
                    } else {
                        firstError.compareAndSet(null, e);
                        failed.incrementAndGet();
                    }
                });
                if (i == total / 4) {
                    // Let some land first, then take the leader away with requests in flight.
                    TestCluster.await(() -> acked.get() > total / 8, Duration.ofSeconds(60), "the first acknowledgements");
                    fault.inject(victim);
                }
            }
            TestCluster.await(() -> {
                try {
                    return leaderOf(topic, 0).id() != victim.id();
                } catch (Exception e) {
                    return false;
                }
            }, Duration.ofSeconds(60), "a new leader for " + topic);
            producer.flush();
        } finally {
            if (victim.isRunning()) {
                victim.resume();
            } else {
                victim.start();
            }
        }
        cluster.awaitReady(Duration.ofSeconds(90));
        assertThat(failed.get()).as("failed sends, first: %s", firstError.get()).isZero();
        assertThat(acked.get()).isEqualTo(total);
        assertThat(registry.get("raftline.client.producer.batch.retries").counter().count())
            .as("batches retried (the failure really hit requests in flight)").isPositive();
        try (RaftlineConsumer<String, String> consumer = consumer()) {
            List<ConsumerRecord<String, String>> read = SdkSupport.readAll(consumer, new TopicPartition(topic, 0), Duration.ofSeconds(90));
            List<Integer> values = read.stream().map(r -> Integer.parseInt(r.value())).toList();
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < total; i++) {
                expected.add(i);
            }
            assertThat(values).as("the partition holds each record once, in send order").isEqualTo(expected);
            for (int i = 0; i < total; i++) {
                assertThat(read.get(i).offset()).as("acknowledged offset of record %d", i).isEqualTo(offsets[i]);
            }
        }
    }
}
