package io.raftline.tests.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusNamingConvention;
import io.raftline.client.admin.Admin;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.consumer.ConsumerInterceptor;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.ConsumerRecords;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.consumer.OffsetAndTimestamp;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.errors.NoOffsetForPartitionException;
import io.raftline.client.errors.WakeupException;
import io.raftline.client.examples.GroupConsumerExample;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.tests.cluster.TestCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The consumer against a real single-node cluster (a node process, real sockets): seek, seekToBeginning/End,
 * position, offsetsForTimes, auto.offset.reset earliest/latest/none (and a committed offset winning over it),
 * pause/resume, wakeup, interceptors in order, and the SDK's meters in the application's registry.
 */
@Timeout(300)
class ConsumerIT {

    private static final long BASE_TS = 1_700_000_000_000L;
    private static TestCluster cluster;
    private static Admin admin;
    private static RaftlineProducer<String, String> producer;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(1).start();
        admin = cluster.admin();
        producer = new RaftlineProducer<>(props(), new StringSerializer(), new StringSerializer());
    }

    @AfterAll
    static void stop() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Properties props(String... kv) {
        return cluster.clientProperties(kv);
    }

    private static RaftlineConsumer<String, String> consumer(String... kv) {
        return new RaftlineConsumer<>(props(kv), new StringDeserializer(), new StringDeserializer());
    }

    /** Writes records from..to-1 to a partition, value "v{i}", timestamp BASE_TS + 10 * i. */
    private static void produce(String topic, int partition, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            producer.send(new ProducerRecord<>(topic, partition, BASE_TS + 10L * i, "k" + i, "v" + i));
        }
        producer.flush();
    }

    /** Polls until {@code n} records came back (or fails after the deadline). */
    private static List<ConsumerRecord<String, String>> pollFor(RaftlineConsumer<String, String> c, int n) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        TestCluster.await(() -> {
            c.poll(Duration.ofMillis(200)).forEach(out::add);
            return out.size() >= n;
        }, Duration.ofSeconds(60), n + " records");
        return out;
    }

    @Test
    void seekSeekToBeginningAndSeekToEndMoveThePosition() throws Exception {
        String topic = "seek";
        SdkSupport.createTopic(admin, topic, 1, 1, Map.of());
        produce(topic, 0, 0, 100);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (RaftlineConsumer<String, String> c = consumer("max.poll.records", "5")) {
            c.assign(List.of(tp));
            c.seek(tp, 42);
            assertThat(c.position(tp)).isEqualTo(42);
            List<ConsumerRecord<String, String>> got = pollFor(c, 1);
            assertThat(got.get(0).offset()).isEqualTo(42);
            assertThat(got.get(0).value()).isEqualTo("v42");
            assertThat(got).extracting(ConsumerRecord::offset).isSorted().allSatisfy(o -> assertThat(o).isBetween(42L, 46L));

            c.seekToBeginning(List.of(tp));
            assertThat(c.position(tp)).isZero();
            assertThat(pollFor(c, 1).get(0).value()).isEqualTo("v0");

            c.seekToEnd(List.of(tp));
            assertThat(c.position(tp)).isEqualTo(100);
            assertThat(c.poll(Duration.ofMillis(300)).isEmpty()).isTrue();
            produce(topic, 0, 100, 101);
            assertThat(pollFor(c, 1)).extracting(ConsumerRecord::value).containsExactly("v100");
            assertThat(c.position(tp)).isEqualTo(101);

            assertThat(c.beginningOffsets(List.of(tp))).containsEntry(tp, 0L);
            assertThat(c.endOffsets(List.of(tp))).containsEntry(tp, 101L);
        }
    }

    @Test
    void offsetsForTimesFindsTheFirstRecordAtOrAfterEachTimestamp() throws Exception {
        String topic = "times";
        SdkSupport.createTopic(admin, topic, 2, 1, Map.of());
        produce(topic, 0, 0, 100);
        produce(topic, 1, 0, 10);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        try (RaftlineConsumer<String, String> c = consumer()) {
            Map<TopicPartition, OffsetAndTimestamp> exact = c.offsetsForTimes(Map.of(p0, BASE_TS + 370, p1, BASE_TS + 90));
            assertThat(exact.get(p0).offset()).isEqualTo(37);
            assertThat(exact.get(p0).timestamp()).isEqualTo(BASE_TS + 370);
            assertThat(exact.get(p1).offset()).isEqualTo(9);

            Map<TopicPartition, OffsetAndTimestamp> between = c.offsetsForTimes(Map.of(p0, BASE_TS + 375, p1, 0L));
            assertThat(between.get(p0).offset()).isEqualTo(38);
            assertThat(between.get(p1).offset()).isZero();

            Map<TopicPartition, OffsetAndTimestamp> after = c.offsetsForTimes(Map.of(p0, BASE_TS + 10_000, p1, BASE_TS + 91));
            assertThat(after.get(p0)).as("no record at or after the timestamp").isNull();
            assertThat(after.get(p1)).isNull();

            // The usual use: seek to the offset found for a time.
            c.assign(List.of(p0));
            c.seek(p0, exact.get(p0).offset());
            assertThat(pollFor(c, 1).get(0).timestamp()).isEqualTo(BASE_TS + 370);
        }
    }

    @Test
    void autoOffsetResetEarliestLatestAndNone() throws Exception {
        String topic = "reset";
        SdkSupport.createTopic(admin, topic, 1, 1, Map.of());
        produce(topic, 0, 0, 20);
        TopicPartition tp = new TopicPartition(topic, 0);

        try (RaftlineConsumer<String, String> c = consumer("group.id", "reset-earliest", "auto.offset.reset", "earliest")) {
            c.assign(List.of(tp));
            assertThat(pollFor(c, 20)).extracting(ConsumerRecord::offset).startsWith(0L, 1L).hasSize(20);
        }
        try (RaftlineConsumer<String, String> c = consumer("group.id", "reset-latest", "auto.offset.reset", "latest")) {
            c.assign(List.of(tp));
            assertThat(c.position(tp)).isEqualTo(20);
            produce(topic, 0, 20, 25);
            assertThat(pollFor(c, 5)).extracting(ConsumerRecord::value).containsExactly("v20", "v21", "v22", "v23", "v24");
        }
        try (RaftlineConsumer<String, String> c = consumer("group.id", "reset-none", "auto.offset.reset", "none")) {
            c.assign(List.of(tp));
            assertThatThrownBy(() -> c.poll(Duration.ofSeconds(2))).isInstanceOf(NoOffsetForPartitionException.class)
                .hasMessageContaining(tp.toString());
            // Nothing moved: an explicit seek makes the partition readable.
            c.seek(tp, 3);
            assertThat(pollFor(c, 1).get(0).offset()).isEqualTo(3);
        }
        // A committed offset wins over the reset policy.
        try (RaftlineConsumer<String, String> c = consumer("group.id", "reset-committed", "auto.offset.reset", "none")) {
            c.assign(List.of(tp));
            c.commitSync(Map.of(tp, new OffsetAndMetadata(11)));
        }
        try (RaftlineConsumer<String, String> c = consumer("group.id", "reset-committed", "auto.offset.reset", "latest")) {
            c.assign(List.of(tp));
            assertThat(pollFor(c, 1).get(0).offset()).isEqualTo(11);
        }
    }

    @Test
    void pausedPartitionsReturnNothingUntilResumed() throws Exception {
        String topic = "pause";
        SdkSupport.createTopic(admin, topic, 2, 1, Map.of());
        produce(topic, 0, 0, 30);
        produce(topic, 1, 0, 30);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "earliest")) {
            c.assign(List.of(p0, p1));
            c.pause(List.of(p0));
            assertThat(c.paused()).containsExactly(p0);
            List<ConsumerRecord<String, String>> got = pollFor(c, 30);
            assertThat(got).hasSize(30).allSatisfy(r -> assertThat(r.partition()).isEqualTo(1));
            // More polls still return nothing of the paused partition, and its position stays.
            for (int i = 0; i < 3; i++) {
                assertThat(c.poll(Duration.ofMillis(200)).records(p0)).isEmpty();
            }
            assertThat(c.position(p0)).isZero();
            c.resume(List.of(p0));
            assertThat(c.paused()).isEmpty();
            assertThat(pollFor(c, 30)).hasSize(30).allSatisfy(r -> assertThat(r.partition()).isZero())
                .extracting(ConsumerRecord::offset).isSorted();
        }
    }

    @Test
    void wakeupEndsABlockedPollAndTheConsumerKeepsWorking() throws Exception {
        String topic = "wakeup";
        SdkSupport.createTopic(admin, topic, 1, 1, Map.of());
        TopicPartition tp = new TopicPartition(topic, 0);
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "earliest")) {
            c.assign(List.of(tp));
            // A wakeup before poll makes the next poll throw at once.
            c.wakeup();
            assertThatThrownBy(() -> c.poll(Duration.ofSeconds(30))).isInstanceOf(WakeupException.class);

            CompletableFuture<Long> blocked = new CompletableFuture<>();
            Thread poller = new Thread(() -> {
                long start = System.nanoTime();
                try {
                    c.poll(Duration.ofSeconds(60));
                    blocked.completeExceptionally(new AssertionError("poll returned without a wakeup"));
                } catch (WakeupException e) {
                    blocked.complete(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                } catch (RuntimeException e) {
                    blocked.completeExceptionally(e);
                }
            }, "poller");
            poller.start();
            // Wake it while it is inside poll (it is blocked: nothing to read, 60 s timeout).
            TestCluster.await(() -> poller.getState() == Thread.State.TIMED_WAITING || poller.getState() == Thread.State.WAITING,
                Duration.ofSeconds(30), "the poller to block in poll");
            c.wakeup();
            assertThat(blocked.get(30, TimeUnit.SECONDS)).as("ms in poll before the wakeup ended it").isLessThan(45_000);
            poller.join(10_000);

            produce(topic, 0, 0, 3);
            assertThat(pollFor(c, 3)).extracting(ConsumerRecord::value).containsExactly("v0", "v1", "v2");
        }
    }

    /** Every consumer interceptor call, in order. */
    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    /** The first consumer interceptor: upper-cases values. */
    public static final class Upper implements ConsumerInterceptor<String, String> {
        @Override
        public ConsumerRecords<String, String> onConsume(ConsumerRecords<String, String> records) {
            EVENTS.add("upper.onConsume " + records.count());
            Map<TopicPartition, List<ConsumerRecord<String, String>>> out = new HashMap<>();
            for (TopicPartition tp : records.partitions()) {
                List<ConsumerRecord<String, String>> list = new ArrayList<>();
                for (ConsumerRecord<String, String> r : records.records(tp)) {
                    list.add(new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.key(), r.value().toUpperCase()));
                }
                out.put(tp, list);
            }
            return new ConsumerRecords<>(out);
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
            EVENTS.add("upper.onCommit " + offsets);
        }
    }

    /** The second consumer interceptor: sees what the first returned. */
    public static final class Audit implements ConsumerInterceptor<String, String> {
        @Override
        public ConsumerRecords<String, String> onConsume(ConsumerRecords<String, String> records) {
            List<String> values = new ArrayList<>();
            records.forEach(r -> values.add(r.value()));
            EVENTS.add("audit.onConsume " + values);
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
            EVENTS.add("audit.onCommit " + offsets);
        }
    }

    @Test
    void consumerInterceptorsRunInConfiguredOrderOnConsumeAndOnCommit() throws Exception {
        String topic = "intercept";
        SdkSupport.createTopic(admin, topic, 1, 1, Map.of());
        produce(topic, 0, 0, 2);
        TopicPartition tp = new TopicPartition(topic, 0);
        EVENTS.clear();
        try (RaftlineConsumer<String, String> c = consumer("group.id", "intercept", "auto.offset.reset", "earliest",
            "enable.auto.commit", "false", "interceptor.classes", Upper.class.getName() + "," + Audit.class.getName())) {
            c.assign(List.of(tp));
            List<ConsumerRecord<String, String>> got = pollFor(c, 2);
            assertThat(got).extracting(ConsumerRecord::value).containsExactly("V0", "V1");
            c.commitSync();
            assertThat(c.committed(Set.of(tp)).get(tp).offset()).isEqualTo(2);
        }
        List<String> consumeEvents = EVENTS.stream().filter(e -> e.contains("onConsume")).toList();
        // Each non-empty poll: upper first, then audit seeing upper's output.
        assertThat(consumeEvents).isNotEmpty();
        for (int i = 0; i < consumeEvents.size(); i += 2) {
            assertThat(consumeEvents.get(i)).startsWith("upper.onConsume");
            assertThat(consumeEvents.get(i + 1)).startsWith("audit.onConsume [V");
        }
        List<String> commitEvents = EVENTS.stream().filter(e -> e.contains("onCommit")).toList();
        assertThat(commitEvents).hasSize(2);
        assertThat(commitEvents.get(0)).startsWith("upper.onCommit").contains(tp.toString());
        assertThat(commitEvents.get(1)).startsWith("audit.onCommit").contains(tp.toString());
        assertThat(EVENTS.indexOf(commitEvents.get(0))).isGreaterThan(EVENTS.indexOf(consumeEvents.get(consumeEvents.size() - 1)));
    }

    /** The Prometheus name of a meter, as a Prometheus registry would expose it (counters get _total, units a suffix). */
    private static String prometheusName(Meter meter) {
        String base = meter.getId().getConventionName(new PrometheusNamingConvention());
        return meter.getId().getType() == Meter.Type.COUNTER && !base.endsWith("_total") ? base + "_total" : base;
    }

    private static Set<String> prometheusNames(SimpleMeterRegistry registry) {
        Set<String> names = new TreeSet<>();
        registry.getMeters().forEach(m -> names.add(prometheusName(m)));
        return names;
    }

    @Test
    void sdkMetersFollowPrometheusConventionsAndMoveWithTraffic() throws Exception {
        String topic = "metered";
        SdkSupport.createTopic(admin, topic, 1, 1, Map.of());
        SimpleMeterRegistry producerRegistry = new SimpleMeterRegistry();
        Map<String, Object> pc = new HashMap<>();
        pc.put("bootstrap.servers", cluster.bootstrap());
        pc.put("client.id", "metered-producer");
        pc.put("linger.ms", "20");
        try (RaftlineProducer<String, String> p = new RaftlineProducer<>(pc, new StringSerializer(), new StringSerializer(),
            producerRegistry)) {
            for (int i = 0; i < 500; i++) {
                p.send(new ProducerRecord<>(topic, 0, null, "v" + i));
            }
            p.flush();
        }
        assertThat(prometheusNames(producerRegistry)).contains(
            "raftline_client_producer_records_sent_total",
            "raftline_client_producer_record_errors_total",
            "raftline_client_producer_batch_retries_total",
            "raftline_client_producer_batch_size_bytes",
            "raftline_client_producer_batch_records",
            "raftline_client_request_latency_seconds",
            "raftline_client_metadata_refreshes_total");
        assertThat(prometheusNames(producerRegistry)).allSatisfy(n -> assertThat(n).startsWith("raftline_client_"));
        assertThat(producerRegistry.get("raftline.client.producer.records.sent").tag("client.id", "metered-producer").counter().count())
            .isEqualTo(500);
        assertThat(producerRegistry.get("raftline.client.producer.record.errors").counter().count()).isZero();
        var batches = producerRegistry.get("raftline.client.producer.batch.size").summary();
        assertThat(batches.count()).isPositive();
        assertThat(batches.totalAmount()).isGreaterThan(500 * 2);
        var produceLatency = producerRegistry.get("raftline.client.request.latency").tag("api", "produce").timers();
        assertThat(produceLatency).as("one timer per broker written to").isNotEmpty()
            .allSatisfy(t -> assertThat(t.getId().getTag("broker")).contains(":"));
        assertThat(produceLatency.stream().mapToLong(t -> t.count()).sum()).isPositive();
        assertThat(produceLatency.stream().mapToDouble(t -> t.totalTime(TimeUnit.NANOSECONDS)).sum()).isPositive();
        assertThat(producerRegistry.get("raftline.client.metadata.refreshes").tag("result", "success").counter().count())
            .isPositive();

        SimpleMeterRegistry consumerRegistry = new SimpleMeterRegistry();
        Map<String, Object> cc = new HashMap<>();
        cc.put("bootstrap.servers", cluster.bootstrap());
        cc.put("client.id", "metered-consumer");
        cc.put("max.poll.records", "100");
        TopicPartition tp = new TopicPartition(topic, 0);
        try (RaftlineConsumer<String, String> c = new RaftlineConsumer<>(cc, new StringDeserializer(), new StringDeserializer(),
            consumerRegistry)) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            List<ConsumerRecord<String, String>> got = pollFor(c, 100);
            long position = c.position(tp);
            // Lag = high watermark - position, as of the last fetch (which saw all 500 records).
            double lag = consumerRegistry.get("raftline.client.consumer.records.lag").tag("topic", topic).tag("partition", "0")
                .gauge().value();
            assertThat(lag).isEqualTo(500.0 - position);
            assertThat(consumerRegistry.get("raftline.client.consumer.records.lag.max").gauge().value()).isEqualTo(lag);
            assertThat(consumerRegistry.get("raftline.client.consumer.records.consumed").counter().count()).isEqualTo(got.size());
            pollFor(c, 500 - got.size());
            assertThat(consumerRegistry.get("raftline.client.consumer.records.lag").tag("partition", "0").gauge().value()).isZero();
            assertThat(consumerRegistry.get("raftline.client.request.latency").tag("api", "fetch").timers().stream()
                .mapToLong(t -> t.count()).sum()).isPositive();
        }
        assertThat(prometheusNames(consumerRegistry)).contains(
            "raftline_client_consumer_records_consumed_total",
            "raftline_client_consumer_records_lag",
            "raftline_client_consumer_records_lag_max",
            "raftline_client_request_latency_seconds");
        assertThat(prometheusNames(consumerRegistry)).allSatisfy(n -> assertThat(n).startsWith("raftline_client_"));
    }

    @Test
    void theGroupConsumerExampleProcessesEveryRecordAndCommitsWhereItStopped() throws Exception {
        String topic = "example";
        SdkSupport.createTopic(admin, topic, 3, 1, Map.of());
        for (int p = 0; p < 3; p++) {
            produce(topic, p, 0, 20);
        }
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        long n;
        try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
            n = GroupConsumerExample.run(GroupConsumerExample.create(cluster.bootstrap(), "example-group"), topic, 60, out);
        }
        assertThat(n).isEqualTo(60);
        List<String> lines = printed.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).anyMatch(l -> l.startsWith("# assigned"));
        assertThat(lines.stream().filter(l -> !l.startsWith("#"))).hasSize(60);
        Set<TopicPartition> all = Set.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1), new TopicPartition(topic, 2));
        try (RaftlineConsumer<String, String> c = consumer("group.id", "example-group")) {
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(all);
            assertThat(all).allSatisfy(tp -> assertThat(committed.get(tp).offset()).as("committed %s", tp).isEqualTo(20));
        }
    }
}
