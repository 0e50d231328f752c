package io.raftline.client.internals.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.client.common.Cluster;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.errors.BufferExhaustedException;
import io.raftline.client.producer.RecordMetadata;
import io.raftline.common.ManualTime;
import io.raftline.record.CompressionType;
import io.raftline.record.Header;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The accumulator's ready/drain rules on a hand-stepped clock. */
@Timeout(30)
class RecordAccumulatorTest {

    private static final Header[] NONE = new Header[0];
    private final ManualTime time = new ManualTime();
    private final Cluster cluster = Murmur2PartitionerTest.cluster("t", 2);
    private final Node leader = cluster.nodeById(1);
    private final TopicPartition tp = new TopicPartition("t", 0);

    private RecordAccumulator accumulator(int batchSize, long lingerMs) {
        return new RecordAccumulator(batchSize, lingerMs, 100, CompressionType.NONE, new BufferPool(1 << 20));
    }

    private RecordAccumulator.AppendResult append(RecordAccumulator acc, int valueBytes) {
        return acc.append(tp, time.milliseconds(), null, new byte[valueBytes], NONE, null, 1000, time.hiResMilliseconds());
    }

    @Test
    void aBatchWaitsForLingerThenGoes() {
        RecordAccumulator acc = accumulator(16_384, 50);
        assertThat(append(acc, 10).newBatchCreated()).isTrue();
        assertThat(append(acc, 10).newBatchCreated()).isFalse();
        RecordAccumulator.ReadyResult notYet = acc.ready(cluster, time.hiResMilliseconds());
        assertThat(notYet.readyNodes()).isEmpty();
        assertThat(notYet.nextReadyCheckDelayMs()).isEqualTo(50);
        time.advance(49);
        assertThat(acc.ready(cluster, time.hiResMilliseconds()).readyNodes()).isEmpty();
        time.advance(1);
        assertThat(acc.ready(cluster, time.hiResMilliseconds()).readyNodes()).containsExactly(leader);
        Map<Integer, List<ProducerBatch>> drained = acc.drain(cluster, java.util.Set.of(leader), 1 << 20,
            RecordAccumulator.OPEN_GATE, time.hiResMilliseconds());
        assertThat(drained.get(1)).hasSize(1);
        assertThat(drained.get(1).get(0).recordCount()).isEqualTo(2);
    }

    @Test
    void aFullBatchGoesAtOnceAndANewOneStarts() {
        RecordAccumulator acc = accumulator(1024, 60_000);
        int appended = 0;
        while (!append(acc, 100).batchIsFull()) {
            appended++;
        }
        assertThat(appended).isBetween(5, 10);
        assertThat(acc.ready(cluster, time.hiResMilliseconds()).readyNodes()).containsExactly(leader);
    }

    @Test
    void flushMakesEverythingReady() throws Exception {
        RecordAccumulator acc = accumulator(16_384, 60_000);
        append(acc, 10);
        acc.beginFlush();
        assertThat(acc.ready(cluster, time.hiResMilliseconds()).readyNodes()).containsExactly(leader);
    }

    @Test
    void retriedBatchesBackOffAndGoFirst() {
        RecordAccumulator acc = accumulator(16_384, 0);
        append(acc, 10);
        ProducerBatch first = acc.drain(cluster, java.util.Set.of(leader), 1 << 20, RecordAccumulator.OPEN_GATE,
            time.hiResMilliseconds()).get(1).get(0);
        append(acc, 10);
        acc.reenqueue(first, time.hiResMilliseconds());
        assertThat(acc.queuedBatches(tp).get(0)).isSameAs(first);
        assertThat(acc.drain(cluster, java.util.Set.of(leader), 1 << 20, RecordAccumulator.OPEN_GATE, time.hiResMilliseconds()))
            .isEmpty();
        time.advance(100);
        assertThat(acc.drain(cluster, java.util.Set.of(leader), 1 << 20, RecordAccumulator.OPEN_GATE, time.hiResMilliseconds())
            .get(1)).first().isSameAs(first);
    }

    @Test
    void queuedBatchesExpireAfterTheDeliveryTimeout() {
        RecordAccumulator acc = accumulator(16_384, 60_000);
        CompletableFuture<RecordMetadata> f = append(acc, 10).future();
        assertThat(acc.expiredBatches(1000, time.hiResMilliseconds())).isEmpty();
        time.advance(1000);
        List<ProducerBatch> expired = acc.expiredBatches(1000, time.hiResMilliseconds());
        assertThat(expired).hasSize(1);
        expired.get(0).complete(-1, -1, new io.raftline.client.errors.TimeoutException("expired"));
        assertThat(f).isCompletedExceptionally();
    }

    @Test
    void aDrainedBatchHoldsOnlyItsBytesSoManySmallBatchesFitInTheMemory() {
        int batchSize = 16_384;
        BufferPool pool = new BufferPool(4L * batchSize, batchSize);
        RecordAccumulator acc = new RecordAccumulator(batchSize, 0, 100, CompressionType.NONE, pool);
        Cluster wide = Murmur2PartitionerTest.cluster("t", 40);
        List<ProducerBatch> inFlight = new java.util.ArrayList<>();
        for (int p = 0; p < 40; p++) {
            // maxBlockMs 0: without compaction the fifth partition's batch would find the memory exhausted
            acc.append(new TopicPartition("t", p), time.milliseconds(), null, new byte[100], NONE, null, 0,
                time.hiResMilliseconds());
            Map<Integer, List<ProducerBatch>> drained = acc.drain(wide, java.util.Set.of(leader), 1 << 20,
                RecordAccumulator.OPEN_GATE, time.hiResMilliseconds());
            assertThat(drained.get(1)).hasSize(1);
            ProducerBatch b = drained.get(1).get(0);
            assertThat(b.reservedBytes).isEqualTo(b.sizeInBytes()).isLessThan(200);
            inFlight.add(b);
        }
        long held = inFlight.stream().mapToLong(b -> b.reservedBytes).sum();
        assertThat(pool.availableMemory()).isEqualTo(4L * batchSize - held);
        // the builders' arrays went back to the pool for the next batches
        assertThat(pool.freeArrays()).isBetween(1, 3);

        io.raftline.record.RecordBatch sent = io.raftline.record.RecordBatch.view(inFlight.get(7).close(), 0);
        assertThat(sent.isValid()).isTrue();
        assertThat(sent.recordCount()).isEqualTo(1);
        assertThat(sent.records().iterator().next().value().remaining()).isEqualTo(100);
        for (ProducerBatch b : inFlight) {
            b.complete(0, -1, null);
            acc.deallocate(b);
        }
        assertThat(pool.availableMemory()).isEqualTo(4L * batchSize);
    }

    @Test
    void aRetriedBatchIsNotCompactedAgain() {
        BufferPool pool = new BufferPool(1 << 20, 16_384);
        RecordAccumulator acc = new RecordAccumulator(16_384, 0, 0, CompressionType.NONE, pool);
        append(acc, 100);
        ProducerBatch b = acc.drain(cluster, java.util.Set.of(leader), 1 << 20, RecordAccumulator.OPEN_GATE,
            time.hiResMilliseconds()).get(1).get(0);
        int compacted = b.reservedBytes;
        acc.reenqueue(b, time.hiResMilliseconds());
        ProducerBatch again = acc.drain(cluster, java.util.Set.of(leader), 1 << 20, RecordAccumulator.OPEN_GATE,
            time.hiResMilliseconds()).get(1).get(0);
        assertThat(again).isSameAs(b);
        assertThat(again.reservedBytes).isEqualTo(compacted);
        assertThat(again.close().remaining()).isEqualTo(compacted);
    }

    @Test
    void bufferPoolBlocksUntilMemoryIsReleasedOrTheWaitEnds() {
        BufferPool pool = new BufferPool(1000);
        pool.allocate(800, 0);
        assertThatThrownBy(() -> pool.allocate(300, 50)).isInstanceOf(BufferExhaustedException.class)
            .hasMessageContaining("300 bytes");
        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> pool.allocate(300, 10_000));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> pool.queued() == 1);
        assertThat(waiter).isNotDone();
        pool.deallocate(800);
        waiter.join();
        assertThat(pool.availableMemory()).isEqualTo(700);
        assertThatThrownBy(() -> pool.allocate(2000, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
