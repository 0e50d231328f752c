package io.raftline.client.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.errors.BufferExhaustedException;
import io.raftline.client.errors.InvalidRecordException;
import io.raftline.client.errors.RecordTooLargeException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.testing.FakeCluster;
import io.raftline.protocol.ErrorCode;
import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ProducerTest {

    private FakeCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = FakeCluster.start(3);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private Map<String, Object> config(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        m.put("bootstrap.servers", cluster.bootstrap(1));
        m.put("retry.backoff.ms", 5);
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private RaftlineProducer<String, String> producer(Object... kv) {
        return new RaftlineProducer<>(config(kv), new StringSerializer(), new StringSerializer());
    }

    /** The values stored in a fake partition, in log order, with their offsets checked to be consecutive. */
    private List<String> storedValues(String topic, int partition) {
        List<String> out = new ArrayList<>();
        byte[] all = cluster.storedBytes(topic, partition);
        long expected = 0;
        for (RecordBatch b : Records.batches(ByteBuffer.wrap(all))) {
            assertThat(b.isValid()).isTrue();
            for (Record r : b.records()) {
                assertThat(r.offset()).isEqualTo(expected++);
                out.add(new String(r.valueBytes(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Test
    void partitionsForRetriesFailedRefreshesUntilMaxBlock() {
        cluster.createTopic("pf", 3);
        try (RaftlineProducer<String, String> p = producer("retry.backoff.ms", 20, "max.block.ms", 400)) {
            int before = cluster.metadataRequests();
            cluster.failNextMetadata(3);
            assertThat(p.partitionsFor("pf")).hasSize(3);
            assertThat(cluster.metadataRequests() - before).isGreaterThanOrEqualTo(4);
            cluster.failNextMetadata(Integer.MAX_VALUE);
            long start = System.nanoTime();
            assertThatThrownBy(() -> p.partitionsFor("pf-unknown")).isInstanceOf(TimeoutException.class);
            // The producer's deadline is on a millisecond clock: up to one tick short of 400 ms by a nanosecond one.
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(399);
            cluster.failNextMetadata(0);
        }
    }

    @Test
    void sendReturnsOffsetsAndCallsBack() throws Exception {
        cluster.createTopic("t", 3);
        try (RaftlineProducer<String, String> p = producer()) {
            List<RecordMetadata> acked = new CopyOnWriteArrayList<>();
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                futures.add(p.send(new ProducerRecord<>("t", 1, "k" + i, "v" + i), (md, e) -> acked.add(md)));
            }
            p.flush();
            for (int i = 0; i < 10; i++) {
                RecordMetadata md = futures.get(i).get();
                assertThat(md.partition()).isEqualTo(1);
                assertThat(md.offset()).isEqualTo(i);
                assertThat(md.serializedKeySize()).isEqualTo(2);
            }
            assertThat(acked).hasSize(10);
            assertThat(storedValues("t", 1)).containsExactly("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9");
            assertThat(p.partitionsFor("t")).hasSize(3);
        }
    }

    @Test
    void acksZeroGivesOffsetMinusOne() throws Exception {
        cluster.createTopic("t", 1);
        try (RaftlineProducer<String, String> p = producer("acks", "0")) {
            RecordMetadata md = p.send(new ProducerRecord<>("t", "v")).get(10, TimeUnit.SECONDS);
            assertThat(md.hasOffset()).isFalse();
            assertThat(md.offset()).isEqualTo(-1);
            await().atMost(Duration.ofSeconds(10)).until(() -> storedValues("t", 0).size() == 1);
        }
    }

    @Test
    void recordsWaitForLingerAndGoTogether() throws Exception {
        cluster.createTopic("t", 1);
        try (RaftlineProducer<String, String> p = producer("linger.ms", 60_000)) {
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                futures.add(p.send(new ProducerRecord<>("t", "v" + i)));
            }
            assertThat(futures.get(0).isDone()).isFalse();
            assertThat(cluster.receivedBatches("t", 0)).isEmpty();
            p.flush();
            assertThat(futures).allMatch(Future::isDone);
            assertThat(cluster.receivedBatches("t", 0)).containsExactly(50);
        }
    }

    @Test
    void fullBatchesGoWithoutWaitingForLinger() throws Exception {
        cluster.createTopic("t", 1);
        try (RaftlineProducer<String, String> p = producer("linger.ms", 60_000, "batch.size", 1024)) {
            String value = "x".repeat(100);
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                futures.add(p.send(new ProducerRecord<>("t", value)));
            }
            futures.get(0).get(10, TimeUnit.SECONDS);
            List<Integer> batches = cluster.receivedBatches("t", 0);
            assertThat(batches.get(0)).isBetween(5, 10);
        }
    }

    @Test
    void idempotentRetriesKeepOrderAndWriteOnce() throws Exception {
        cluster.createTopic("t", 1);
        cluster.injectProduceErrors("t", 0, ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.NOT_LEADER, ErrorCode.REQUEST_TIMED_OUT);
        try (RaftlineProducer<String, String> p = producer("batch.size", 512, "linger.ms", 0)) {
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                sent.add("v" + i);
                futures.add(p.send(new ProducerRecord<>("t", 0, null, "v" + i)));
                if (i == 700) {
                    cluster.injectProduceErrors("t", 0, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, ErrorCode.THROTTLED);
                }
                if (i == 1300) {
                    cluster.moveLeader("t", 0, 2);
                }
            }
            for (int i = 0; i < futures.size(); i++) {
                assertThat(futures.get(i).get(20, TimeUnit.SECONDS).offset()).isEqualTo(i);
            }
            assertThat(storedValues("t", 0)).isEqualTo(sent);
        }
    }

    /**
     * A send that fails for good makes the producer bump its epoch; a batch of another partition then waiting to be
     * retried may already be stored (its leader appended it, then answered with an error) and must be retried under
     * the sequence it was stored with, so the leader recognises it, not stamped again as a new batch of the new
     * epoch, which the leader would store a second time.
     */
    @Test
    void aBatchThatMayBeStoredKeepsItsSequenceAcrossAnEpochBump() throws Exception {
        cluster.createTopic("t", 2);
        try (RaftlineProducer<String, String> p = producer("linger.ms", 0, "retry.backoff.ms", 1500)) {
            p.send(new ProducerRecord<>("t", 0, null, "a0")).get(10, TimeUnit.SECONDS);
            p.send(new ProducerRecord<>("t", 1, null, "b0")).get(10, TimeUnit.SECONDS);
            cluster.injectProduceErrorsAfterAppend("t", 0, ErrorCode.REQUEST_TIMED_OUT);
            Future<RecordMetadata> a1 = p.send(new ProducerRecord<>("t", 0, null, "a1"));
            await("a1 stored by partition 0's leader").atMost(Duration.ofSeconds(10)).until(() -> storedValues("t", 0).size() == 2);
            // a1 now waits out its retry backoff; meanwhile partition 1 refuses a batch for good
            cluster.injectProduceErrors("t", 1, ErrorCode.INVALID_RECORD);
            Future<RecordMetadata> b1 = p.send(new ProducerRecord<>("t", 1, null, "b1"));
            assertThatThrownBy(() -> b1.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(InvalidRecordException.class);
            assertThat(a1.get(10, TimeUnit.SECONDS).offset()).isEqualTo(1);
            assertThat(p.send(new ProducerRecord<>("t", 0, null, "a2")).get(10, TimeUnit.SECONDS).offset()).isEqualTo(2);
            assertThat(p.send(new ProducerRecord<>("t", 1, null, "b2")).get(10, TimeUnit.SECONDS).offset()).isEqualTo(1);
        }
        assertThat(storedValues("t", 0)).containsExactly("a0", "a1", "a2");
        assertThat(storedValues("t", 1)).containsExactly("b0", "b2");
    }

    /**
     * OUT_OF_ORDER_SEQUENCE with no earlier batch of the partition pending says the leader never stored the batch:
     * the producer bumps its epoch and sends it again under the new one, as Kafka's idempotent producer does, instead
     * of failing it.
     */
    @Test
    void aSequenceTheLeaderRefusesAsOutOfOrderIsSentAgainUnderANewEpoch() throws Exception {
        cluster.createTopic("t", 1);
        try (RaftlineProducer<String, String> p = producer("linger.ms", 0, "batch.size", 1)) {
            p.send(new ProducerRecord<>("t", 0, null, "v0")).get(10, TimeUnit.SECONDS);
            cluster.injectProduceErrors("t", 0, ErrorCode.OUT_OF_ORDER_SEQUENCE);
            // v2 goes in flight behind v1 or waits for the new epoch: either way both are stored once, in order
            Future<RecordMetadata> v1 = p.send(new ProducerRecord<>("t", 0, null, "v1"));
            Future<RecordMetadata> v2 = p.send(new ProducerRecord<>("t", 0, null, "v2"));
            assertThat(v1.get(10, TimeUnit.SECONDS).offset()).isEqualTo(1);
            assertThat(v2.get(10, TimeUnit.SECONDS).offset()).isEqualTo(2);
            assertThat(p.send(new ProducerRecord<>("t", 0, null, "v3")).get(10, TimeUnit.SECONDS).offset()).isEqualTo(3);
        }
        assertThat(storedValues("t", 0)).containsExactly("v0", "v1", "v2", "v3");
    }

    @Test
    void interceptorsRunInOrder() throws Exception {
        cluster.createTopic("t", 1);
        RecordingInterceptor.EVENTS.clear();
        String classes = RecordingInterceptor.First.class.getName() + "," + RecordingInterceptor.Second.class.getName();
        try (RaftlineProducer<String, String> p = producer("interceptor.classes", classes)) {
            RecordMetadata md = p.send(new ProducerRecord<>("t", "v"), (m, e) -> RecordingInterceptor.EVENTS.add("callback"))
                .get(10, TimeUnit.SECONDS);
            assertThat(md.offset()).isZero();
        }
        assertThat(storedValues("t", 0)).containsExactly("v-first-second");
        assertThat(RecordingInterceptor.EVENTS).containsExactly("first.onSend", "second.onSend", "first.onAck", "second.onAck",
            "callback", "first.close", "second.close");
    }

    @Test
    void metricsAnswerWithAndWithoutAnApplicationRegistry() throws Exception {
        cluster.createTopic("t", 1);
        io.micrometer.core.instrument.simple.SimpleMeterRegistry app = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        try (RaftlineProducer<String, String> own = producer("client.id", "own");
             RaftlineProducer<String, String> shared = new RaftlineProducer<>(config("client.id", "shared"),
                 new StringSerializer(), new StringSerializer(), app)) {
            for (int i = 0; i < 3; i++) {
                own.send(new ProducerRecord<>("t", "v" + i)).get(10, TimeUnit.SECONDS);
                shared.send(new ProducerRecord<>("t", "w" + i)).get(10, TimeUnit.SECONDS);
            }
            for (RaftlineProducer<String, String> p : List.of(own, shared)) {
                java.util.Map<io.raftline.client.common.MetricName, Double> m = p.metrics();
                assertThat(m).containsEntry(new io.raftline.client.common.MetricName("raftline.client.producer.records.sent",
                    java.util.Map.of("client.id", p == own ? "own" : "shared", "statistic", "count")), 3.0);
                assertThat(m.keySet()).extracting(io.raftline.client.common.MetricName::name)
                    .contains("raftline.client.request.latency", "raftline.client.producer.batch.size");
            }
            assertThat(app.get("raftline.client.producer.records.sent").tag("client.id", "shared").counter().count()).isEqualTo(3.0);
            assertThat(app.find("raftline.client.producer.records.sent").tag("client.id", "own").counter()).isNull();
        }
    }

    @Test
    void keysFromAKafkaClientFileReachTheSerializerAndTheProducerStillWorks() throws Exception {
        cluster.createTopic("t", 1);
        RecordingSerializer.CONFIGURED.clear();
        Map<String, Object> kv = config("value.serializer", RecordingSerializer.class.getName(),
            "schema.registry.url", "http://registry:8081", "security.protocol", "PLAINTEXT");
        try (RaftlineProducer<String, String> p = new RaftlineProducer<>(kv, new StringSerializer(), null)) {
            assertThat(p.send(new ProducerRecord<>("t", "v")).get(10, TimeUnit.SECONDS).offset()).isZero();
        }
        assertThat(RecordingSerializer.CONFIGURED).containsEntry("schema.registry.url", "http://registry:8081")
            .containsEntry("security.protocol", "PLAINTEXT");
        assertThat(storedValues("t", 0)).containsExactly("v");
    }

    @Test
    void unknownTopicFailsAfterMaxBlock() {
        try (RaftlineProducer<String, String> p = producer("max.block.ms", 300)) {
            Future<RecordMetadata> f = p.send(new ProducerRecord<>("nope", "v"));
            assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class).cause().isInstanceOf(TimeoutException.class)
                .hasMessageContaining("nope");
        }
    }

    @Test
    void recordLargerThanMaxRequestSizeIsRefused() {
        cluster.createTopic("t", 1);
        try (RaftlineProducer<String, String> p = producer("max.request.size", 1000)) {
            Future<RecordMetadata> f = p.send(new ProducerRecord<>("t", "x".repeat(2000)));
            assertThatThrownBy(f::get).cause().isInstanceOf(RecordTooLargeException.class).hasMessageContaining("max.request.size");
        }
    }

    @Test
    void fullBufferBlocksThenFailsAfterMaxBlock() throws Exception {
        cluster.createTopic("t", 4);
        for (int i = 0; i < 10_000; i++) {
            cluster.injectProduceErrors("t", 0, ErrorCode.NOT_ENOUGH_REPLICAS);
        }
        RaftlineProducer<String, String> p = producer("buffer.memory", 40_000, "batch.size", 16_384, "max.block.ms", 300,
            "linger.ms", 0);
        try {
            // Two batches of partition 0 (too big to share one) hold 32 KiB of the 40 KiB while they are retried.
            p.send(new ProducerRecord<>("t", 0, null, "x".repeat(10_000)));
            p.send(new ProducerRecord<>("t", 0, null, "y".repeat(10_000)));
            long start = System.nanoTime();
            Future<RecordMetadata> blocked = p.send(new ProducerRecord<>("t", 1, null, "b"));
            long blockedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(blockedMs).isGreaterThanOrEqualTo(250);
            assertThatThrownBy(blocked::get).cause().isInstanceOf(BufferExhaustedException.class).hasMessageContaining("buffer.memory");
        } finally {
            p.close(Duration.ZERO);
        }
    }

    @Test
    void metricsGoToTheGivenRegistry() throws Exception {
        cluster.createTopic("t", 1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        cluster.injectProduceErrors("t", 0, ErrorCode.NOT_ENOUGH_REPLICAS);
        try (RaftlineProducer<String, String> p = new RaftlineProducer<>(config("client.id", "m"), new StringSerializer(),
            new StringSerializer(), registry)) {
            p.send(new ProducerRecord<>("t", "v")).get(10, TimeUnit.SECONDS);
            p.send(new ProducerRecord<>("t", "w")).get(10, TimeUnit.SECONDS);
        }
        assertThat(registry.get("raftline.client.producer.records.sent").tag("client.id", "m").counter().count()).isEqualTo(2);
        assertThat(registry.get("raftline.client.producer.batch.retries").counter().count()).isEqualTo(1);
        assertThat(registry.get("raftline.client.producer.batch.size").summary().count()).isGreaterThanOrEqualTo(2);
    }
}
