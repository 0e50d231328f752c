package io.raftline.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.errors.CorruptRecordException;
import io.raftline.client.errors.NoOffsetForPartitionException;
import io.raftline.client.errors.OffsetOutOfRangeException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.errors.WakeupException;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.client.testing.FakeCluster;
import io.raftline.protocol.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(60)
class ConsumerTest {

    private static final TopicPartition TP0 = new TopicPartition("t", 0);

    private FakeCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = FakeCluster.start(2);
        cluster.createTopic("t", 2);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private Map<String, Object> config(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        m.put("bootstrap.servers", cluster.bootstrap());
        m.put("retry.backoff.ms", 5);
        m.put("fetch.max.wait.ms", 50);
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private RaftlineConsumer<String, String> consumer(Object... kv) {
        return new RaftlineConsumer<>(config(kv), new StringDeserializer(), new StringDeserializer());
    }

    /** Produces values to partition 0, one batch per call (flushed), with the given timestamps if any. */
    private void produceBatch(String compression, List<String> values, Long timestamp) throws Exception {
        Map<String, Object> producerConfig = Map.of("bootstrap.servers", cluster.bootstrap(), "linger.ms", 60_000,
            "compression.type", compression, "batch.size", 1 << 20);
        try (RaftlineProducer<String, String> p = new RaftlineProducer<>(producerConfig, new StringSerializer(), new StringSerializer())) {
            for (String v : values) {
                ProducerRecord<String, String> r = new ProducerRecord<>("t", 0, timestamp, "k-" + v, v);
                r.headers().add("h", v.getBytes(StandardCharsets.UTF_8));
                p.send(r);
            }
            p.flush();
        }
    }

    private void produceBatch(List<String> values) throws Exception {
        produceBatch("none", values, null);
    }

    private static List<String> range(int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add("v" + i);
        }
        return out;
    }

    private static List<String> pollValues(Consumer<String, String> c, int expected) {
        List<String> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (out.size() < expected && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                out.add(r.value());
            }
        }
        return out;
    }

    @Test
    void partitionsForRetriesFailedRefreshesWithBackoff() {
        try (RaftlineConsumer<String, String> c = consumer("retry.backoff.ms", 50)) {
            int before = cluster.metadataRequests();
            cluster.failNextMetadata(3);
            long start = System.nanoTime();
            assertThat(c.partitionsFor("t")).extracting(p -> p.partition()).containsExactlyInAnyOrder(0, 1);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(cluster.metadataRequests() - before).isEqualTo(4);
            // three failed attempts, each followed by retry.backoff.ms before the next one
            // (on whole monotonic milliseconds, so each wait may come up to 1 ms short)
            assertThat(tookMs).isGreaterThanOrEqualTo(146);
        }
    }

    @Test
    void partitionsForTimesOutAfterDefaultApiTimeoutAndIsEmptyForAnUnknownTopic() {
        try (RaftlineConsumer<String, String> c = consumer("retry.backoff.ms", 20, "default.api.timeout.ms", 400)) {
            assertThat(c.partitionsFor("no-such-topic")).isEmpty();
            int before = cluster.metadataRequests();
            cluster.failNextMetadata(Integer.MAX_VALUE);
            long start = System.nanoTime();
            assertThatThrownBy(() -> c.partitionsFor("t")).isInstanceOf(TimeoutException.class);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // The deadline is on whole monotonic milliseconds (nanoseconds truncated): the call may end up to 1 ms short of 400.
            assertThat(tookMs).isGreaterThanOrEqualTo(399);
            // retried, not given up after the first failure (how often depends on how fast the failures come back)
            assertThat(cluster.metadataRequests() - before).isGreaterThanOrEqualTo(2);
            cluster.failNextMetadata(0);
            assertThat(c.partitionsFor("t")).hasSize(2);
        }
    }

    @Test
    void assignedPartitionIsReadInOrderWithMaxPollRecords() throws Exception {
        produceBatch(range(0, 30));
        produceBatch(range(30, 60));
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "earliest", "max.poll.records", 7)) {
            c.assign(List.of(TP0));
            List<String> got = new ArrayList<>();
            while (got.size() < 60) {
                ConsumerRecords<String, String> records = c.poll(Duration.ofSeconds(5));
                assertThat(records.count()).isBetween(1, 7);
                for (ConsumerRecord<String, String> r : records) {
                    assertThat(r.offset()).isEqualTo(got.size());
                    assertThat(r.key()).isEqualTo("k-" + r.value());
                    assertThat(new String(r.headers().lastHeader("h").value(), StandardCharsets.UTF_8)).isEqualTo(r.value());
                    got.add(r.value());
                }
            }
            assertThat(got).isEqualTo(range(0, 60));
            assertThat(c.position(TP0)).isEqualTo(60);
            // metrics() answers without an application registry: the records consumed, per client
            assertThat(c.metrics().entrySet()).anySatisfy(e -> {
                assertThat(e.getKey().name()).isEqualTo("raftline.client.consumer.records.consumed");
                assertThat(e.getKey().tags()).containsEntry("statistic", "count").containsKey("client.id");
                assertThat(e.getValue()).isEqualTo(60.0);
            });
        }
    }

    @Test
    void latestStartsAtTheEndAndSeekMovesInsideABatch() throws Exception {
        produceBatch(range(0, 10));
        try (RaftlineConsumer<String, String> c = consumer()) {
            c.assign(List.of(TP0));
            assertThat(c.position(TP0)).isEqualTo(10);
            produceBatch(range(10, 15));
            assertThat(pollValues(c, 5)).isEqualTo(range(10, 15));
            c.seek(TP0, 4);
            assertThat(pollValues(c, 11)).isEqualTo(range(4, 15));
            c.seekToBeginning(List.of(TP0));
            assertThat(c.position(TP0)).isZero();
            c.seekToEnd(List.of(TP0));
            assertThat(c.position(TP0)).isEqualTo(15);
        }
    }

    @Test
    void resetNoneFailsWithoutAPosition() {
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "none")) {
            c.assign(List.of(TP0));
            assertThatThrownBy(() -> c.poll(Duration.ofMillis(200))).isInstanceOf(NoOffsetForPartitionException.class)
                .hasMessageContaining("t-0");
        }
    }

    @Test
    void outOfRangeResetsOrFails() throws Exception {
        produceBatch(range(0, 5));
        produceBatch(range(5, 10));
        cluster.deleteRecordsBefore("t", 0, 5);
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "earliest")) {
            c.assign(List.of(TP0));
            c.seek(TP0, 1);
            assertThat(pollValues(c, 5)).isEqualTo(range(5, 10));
        }
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "none")) {
            c.assign(List.of(TP0));
            c.seek(TP0, 1);
            assertThatThrownBy(() -> pollValues(c, 1)).isInstanceOf(OffsetOutOfRangeException.class).hasMessageContaining("t-0");
        }
    }

    @Test
    void corruptBatchIsAnErrorNeverRecords() throws Exception {
        produceBatch(range(0, 5));
        cluster.corruptNextFetches("t", 0, 1);
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "earliest")) {
            c.assign(List.of(TP0));
            assertThatThrownBy(() -> pollValues(c, 1)).isInstanceOf(CorruptRecordException.class).hasMessageContaining("t-0");
            assertThat(c.position(TP0)).isZero();
            assertThat(pollValues(c, 5)).isEqualTo(range(0, 5));
        }
    }

    @Test
    void partialTrailingBatchIsFetchedAgainLater() throws Exception {
        produceBatch(range(0, 5));
        produceBatch(range(5, 10));
        cluster.truncateFetches("t", 0, 10);
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "earliest")) {
            c.assign(List.of(TP0));
            assertThat(pollValues(c, 5)).isEqualTo(range(0, 5));
            assertThat(c.poll(Duration.ofMillis(200)).isEmpty()).isTrue();
            cluster.truncateFetches("t", 0, 0);
            assertThat(pollValues(c, 5)).isEqualTo(range(5, 10));
        }
    }

    @Test
    void nextRecordsAreFetchedWhileTheBufferedOnesAreHandedOut() throws Exception {
        produceBatch(range(0, 10));
        produceBatch(range(10, 20));
        produceBatch(range(20, 30));
        // One batch per answer, one record per poll: the application is far behind the fetches.
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "earliest", "max.poll.records", 1,
            "max.partition.fetch.bytes", 1)) {
            c.assign(List.of(TP0));
            assertThat(pollValues(c, 1)).isEqualTo(range(0, 1));
            // The answer after the first batch is asked for while the application is still at offset 1.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> cluster.fetchOffsets("t", 0).contains(10L));
            assertThat(c.position(TP0)).isEqualTo(1);
            List<String> rest = pollValues(c, 29);
            assertThat(rest).isEqualTo(range(1, 30));
            // Each offset asked for once, where the previous answer ended (offset 30 is the end: long polls repeat).
            assertThat(cluster.fetchOffsets("t", 0).stream().filter(o -> o < 30)).containsExactly(0L, 10L, 20L);
        }
    }

    @Test
    void seekDropsPrefetchedAnswers() throws Exception {
        produceBatch(range(0, 10));
        produceBatch(range(10, 20));
        produceBatch(range(20, 30));
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "earliest", "max.poll.records", 3,
            "max.partition.fetch.bytes", 1)) {
            c.assign(List.of(TP0));
            assertThat(pollValues(c, 3)).isEqualTo(range(0, 3));
            c.seek(TP0, 25);
            assertThat(pollValues(c, 5)).isEqualTo(range(25, 30));
            c.seek(TP0, 5);
            assertThat(pollValues(c, 25)).isEqualTo(range(5, 30));
            assertThat(c.position(TP0)).isEqualTo(30);
        }
    }

    @Test
    void corruptPrefetchedBatchIsAnErrorAfterTheGoodRecords() throws Exception {
        produceBatch(range(0, 10));
        produceBatch(range(10, 20));
        produceBatch(range(20, 30));
        cluster.corruptFetchesFrom("t", 0, 10, 1);
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "earliest", "max.partition.fetch.bytes", 1)) {
            c.assign(List.of(TP0));
            List<String> got = new ArrayList<>();
            assertThatThrownBy(() -> {
                while (true) {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                        got.add(r.value());
                    }
                }
            }).isInstanceOf(CorruptRecordException.class).hasMessageContaining("t-0").hasMessageContaining("offset 10");
            assertThat(got).isEqualTo(range(0, 10));
            assertThat(c.position(TP0)).isEqualTo(10);
            assertThat(pollValues(c, 20)).isEqualTo(range(10, 30));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void everyCodecRoundTrips(String codec) throws Exception {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            values.add("value-" + i + "-" + "abc".repeat(i % 17));
        }
        produceBatch(codec, values, null);
        assertThat(cluster.receivedBatches("t", 0)).containsExactly(200);
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "earliest")) {
            c.assign(List.of(TP0));
            c.seek(TP0, 50);
            assertThat(pollValues(c, 150)).isEqualTo(values.subList(50, 200));
        }
    }

    @Test
    void offsetsByTimeAndBounds() throws Exception {
        produceBatch("none", range(0, 3), 1_000L);
        produceBatch("none", range(3, 6), 2_000L);
        try (RaftlineConsumer<String, String> c = consumer()) {
            assertThat(c.beginningOffsets(List.of(TP0))).containsEntry(TP0, 0L);
            assertThat(c.endOffsets(List.of(TP0, new TopicPartition("t", 1)))).containsEntry(TP0, 6L)
                .containsEntry(new TopicPartition("t", 1), 0L);
            Map<TopicPartition, OffsetAndTimestamp> found = c.offsetsForTimes(Map.of(TP0, 1_500L));
            assertThat(found.get(TP0).offset()).isEqualTo(3);
            assertThat(found.get(TP0).timestamp()).isEqualTo(2_000L);
            assertThat(c.offsetsForTimes(Map.of(TP0, 9_999L)).get(TP0)).isNull();
        }
    }

    @Test
    void pauseStopsAPartitionAndResumeRestartsIt() throws Exception {
        produceBatch(range(0, 5));
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "earliest")) {
            c.assign(List.of(TP0));
            c.pause(List.of(TP0));
            assertThat(c.poll(Duration.ofMillis(200)).isEmpty()).isTrue();
            assertThat(c.paused()).containsExactly(TP0);
            c.resume(List.of(TP0));
            assertThat(pollValues(c, 5)).isEqualTo(range(0, 5));
        }
    }

    @Test
    void followsALeaderMoveAndRetriesFetchErrors() throws Exception {
        produceBatch(range(0, 5));
        cluster.injectFetchErrors("t", 0, ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.LEADER_NOT_AVAILABLE);
        try (RaftlineConsumer<String, String> c = consumer("auto.offset.reset", "earliest")) {
            c.assign(List.of(TP0));
            assertThat(pollValues(c, 5)).isEqualTo(range(0, 5));
            cluster.moveLeader("t", 0, 2);
            produceBatch(range(5, 8));
            assertThat(pollValues(c, 3)).isEqualTo(range(5, 8));
        }
    }

    @Test
    void wakeupInterruptsPoll() throws Exception {
        try (RaftlineConsumer<String, String> c = consumer()) {
            c.assign(List.of(TP0));
            c.wakeup();
            assertThatThrownBy(() -> c.poll(Duration.ofSeconds(30))).isInstanceOf(WakeupException.class);
            Thread poller = Thread.currentThread();
            Thread waker = new Thread(() -> {
                // Wake the consumer once the polling thread is blocked waiting for data.
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> poller.getState() == Thread.State.TIMED_WAITING);
                c.wakeup();
            });
            waker.start();
            long start = System.nanoTime();
            assertThatThrownBy(() -> c.poll(Duration.ofSeconds(30))).isInstanceOf(WakeupException.class);
            assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(10);
            waker.join();
        }
    }

    @Test
    void groupOperationsRefuseClearlyWithoutAGroup() {
        try (RaftlineConsumer<String, String> c = consumer()) {
            assertThatThrownBy(() -> c.subscribe(List.of("t"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("requires group.id");
            c.assign(List.of(TP0));
            assertThatThrownBy(c::commitSync).isInstanceOf(IllegalStateException.class).hasMessageContaining("requires group.id");
            assertThatThrownBy(() -> c.committed(java.util.Set.of(TP0))).isInstanceOf(IllegalStateException.class);
            assertThat(c.poll(Duration.ZERO).isEmpty()).isTrue();
        }
        try (RaftlineConsumer<String, String> c = consumer()) {
            assertThatThrownBy(() -> c.poll(Duration.ZERO)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not subscribed");
        }
    }

    @Test
    void interceptorsAndLagMetric() throws Exception {
        produceBatch(range(0, 10));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Map<String, Object> cfg = config("auto.offset.reset", "earliest", "max.poll.records", 4, "client.id", "c1",
            "interceptor.classes", UpperCaseInterceptor.class.getName());
        try (RaftlineConsumer<String, String> c = new RaftlineConsumer<>(cfg, new StringDeserializer(), new StringDeserializer(),
            registry)) {
            c.assign(List.of(TP0));
            List<String> first = pollValues(c, 4);
            assertThat(first).containsExactly("V0", "V1", "V2", "V3");
            assertThat(registry.get("raftline.client.consumer.records.lag").tag("partition", "0").gauge().value()).isEqualTo(6.0);
            assertThat(registry.get("raftline.client.consumer.records.consumed").counter().count()).isEqualTo(4.0);
        }
    }
}
