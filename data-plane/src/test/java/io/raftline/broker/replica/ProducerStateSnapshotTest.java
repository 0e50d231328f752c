package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogConfig;
import io.raftline.common.ManualTime;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.protocol.ErrorCode;
import io.raftline.record.CompressionType;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Idempotent-producer state across restarts: snapshots written at each roll and at a clean close, loaded at start
 * with only the log after them replayed; a retried batch is still recognised after a restart.
 */
class ProducerStateSnapshotTest {

    private static final long PRODUCER = 4242;
    private static final Uuid TOPIC_ID = Uuid.fromBytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
    private static final PartitionRegistration LEADER = new PartitionRegistration(List.of(1), List.of(1), 1, 0, 0, List.of(),
        List.of(), false);

    @TempDir
    Path tmp;

    private final ManualTime time = new ManualTime();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private Log log;

    @AfterEach
    void close() throws InterruptedException {
        if (log != null) {
            log.close();
        }
        scheduler.shutdownNow();
        scheduler.awaitTermination(5, TimeUnit.SECONDS);
    }

    private Path dir() {
        return tmp.resolve("t-0");
    }

    private Log open(boolean clean) throws IOException {
        LogConfig config = LogConfig.fromProperties(Map.of(), Map.of(LogConfig.SEGMENT_BYTES, "1024",
            LogConfig.FILE_DELETE_DELAY_MS, "0"));
        return Log.open(dir(), "t", 0, TOPIC_ID.bytes(), config, 0, clean, time, scheduler, (l, e) -> { });
    }

    /** A new partition over a (re)opened log, as a broker loads it; returns the batches replayed from the log. */
    private Partition load(boolean clean, long[] replayed) throws IOException {
        log = open(clean);
        Partition p = new Partition(new io.raftline.broker.replica.TopicPartition("t", 0), 1, time);
        replayed[0] = p.loadProducerState(log);
        p.makeLeader(TOPIC_ID, LEADER, log, 0);
        return p;
    }

    private static ByteBuffer idempotent(int baseSequence, int records) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, PRODUCER, (short) 0,
            baseSequence, 256);
        for (int i = 0; i < records; i++) {
            b.append(1000, null, ("value-" + (baseSequence + i) + "-padding-padding-padding").getBytes(StandardCharsets.UTF_8), null);
        }
        return b.build();
    }

    private List<Path> snapshots() throws IOException {
        try (Stream<Path> s = Files.list(dir())) {
            return s.filter(f -> f.getFileName().toString().endsWith(".snapshot")).sorted().toList();
        }
    }

    @Test
    void aRetriedBatchIsStillDeduplicatedAfterACleanRestart() throws Exception {
        long[] replayed = new long[1];
        Partition p = load(false, replayed);
        int seq = 0;
        Partition.AppendResult last = null;
        for (int i = 0; i < 40; i++) {
            last = p.appendAsLeader(idempotent(seq, 2), 1);
            seq += 2;
        }
        assertThat(log.numberOfSegments()).as("the log rolled").isGreaterThan(3);
        assertThat(snapshots()).as("a snapshot at each roll").hasSize(log.numberOfSegments() - 1);
        long end = log.logEndOffset();
        p.close();
        log.flush();
        log.writeProducerSnapshot();
        log.close();

        p = load(true, replayed);
        assertThat(replayed[0]).as("the clean-shutdown snapshot is at the log end: nothing to replay").isZero();
        Partition.AppendResult retried = p.appendAsLeader(idempotent(seq - 2, 2), 1);
        assertThat(retried.firstOffset()).isEqualTo(last.firstOffset());
        assertThat(log.logEndOffset()).as("the retry stored nothing").isEqualTo(end);
        Partition dup = p;
        int gap = seq + 5;
        assertThatThrownBy(() -> dup.appendAsLeader(idempotent(gap, 1), 1)).isInstanceOf(ReplicaException.class)
            .extracting(e -> ((ReplicaException) e).code()).isEqualTo(ErrorCode.OUT_OF_ORDER_SEQUENCE);
        assertThat(p.appendAsLeader(idempotent(seq, 1), 1).firstOffset()).isEqualTo(end);
    }

    @Test
    void aLoadAfterACrashReadsOnlyTheTailAfterTheNewestSnapshot() throws Exception {
        long[] replayed = new long[1];
        Partition p = load(false, replayed);
        int seq = 0;
        for (int i = 0; i < 30; i++) {
            p.appendAsLeader(idempotent(seq, 2), 1);
            seq += 2;
        }
        List<Path> before = snapshots();
        assertThat(before).isNotEmpty();
        long newest = Long.parseLong(before.get(before.size() - 1).getFileName().toString().substring(0, 20));
        long batchesAfterSnapshot = (log.logEndOffset() - newest) / 2;
        assertThat(batchesAfterSnapshot).isPositive().isLessThan(30);
        Partition.AppendResult lastBefore = p.appendAsLeader(idempotent(seq, 2), 1);
        seq += 2;
        batchesAfterSnapshot++;
        // a crash: no shutdown snapshot
        log.flush();
        log.close();

        p = load(false, replayed);
        assertThat(replayed[0]).as("only the batches after offset %d", newest).isEqualTo(batchesAfterSnapshot);
        int lastSequence = seq - 1;
        assertThat(p.producerState().epochAndLastSequence(PRODUCER)).hasValueSatisfying(v -> assertThat(v[1]).isEqualTo(lastSequence));
        assertThat(p.appendAsLeader(idempotent(seq - 2, 2), 1).firstOffset()).isEqualTo(lastBefore.firstOffset());
    }

    @Test
    void aCorruptSnapshotFallsBackToAnOlderOneAndTruncationDropsSnapshotsPastTheNewEnd() throws Exception {
        long[] replayed = new long[1];
        Partition p = load(false, replayed);
        int seq = 0;
        for (int i = 0; i < 40; i++) {
            p.appendAsLeader(idempotent(seq, 2), 1);
            seq += 2;
        }
        List<Path> snaps = snapshots();
        assertThat(snaps.size()).isGreaterThanOrEqualTo(3);
        Path newest = snaps.get(snaps.size() - 1);
        byte[] bytes = Files.readAllBytes(newest);
        bytes[bytes.length - 1] ^= 0x5a;
        Files.write(newest, bytes);
        log.flush();
        log.close();

        p = load(false, replayed);
        assertThat(snapshots()).as("the corrupt one is deleted").doesNotContain(newest).hasSize(snaps.size() - 1);
        long older = Long.parseLong(snaps.get(snaps.size() - 2).getFileName().toString().substring(0, 20));
        assertThat(replayed[0]).isEqualTo((log.logEndOffset() - older) / 2);
        assertThat(p.appendAsLeader(idempotent(seq, 1), 1).firstOffset()).as("the sequence continues").isEqualTo(80);

        // a follower truncation below a snapshot removes it: it describes batches that are gone
        p.makeFollower(TOPIC_ID, new PartitionRegistration(List.of(1, 2), List.of(1, 2), 2, 1, 1, List.of(), List.of(), false),
            log, 0);
        p.truncateTo(older - 2, 1);
        assertThat(snapshots()).allMatch(f -> Long.parseLong(f.getFileName().toString().substring(0, 20)) <= older - 2);
    }

    /**
     * Issue 20, defect 9: a follower truncation that removes every batch the producer state retained for a producer
     * must not forget the producer; its older batches are still in the log. Before the fix the entry was dropped, and
     * once this replica led, the producer's next batch was refused as OUT_OF_ORDER_SEQUENCE (a fatal error for an
     * idempotent producer). Kafka reloads the state from a snapshot and the log after a truncation; so does this.
     */
    @Test
    void aTruncationBelowEveryRetainedBatchKeepsTheProducersSequence() throws Exception {
        long[] replayed = new long[1];
        Partition p = load(false, replayed);
        int batches = ProducerStateManager.RETAINED_BATCHES * 2;
        for (int i = 0; i < batches; i++) {
            p.appendAsLeader(idempotent(i * 2, 2), 1);
        }
        long cut = (long) (batches - ProducerStateManager.RETAINED_BATCHES) * 2;
        p.makeFollower(TOPIC_ID, new PartitionRegistration(List.of(1, 2), List.of(1, 2), 2, 1, 1, List.of(), List.of(), false),
            log, 0);
        p.truncateTo(cut, 1);
        assertThat(log.logEndOffset()).isEqualTo(cut);
        int nextSequence = (int) cut;
        assertThat(p.producerState().epochAndLastSequence(PRODUCER)).as("the producer is still known")
            .hasValueSatisfying(v -> assertThat(v[1]).isEqualTo(nextSequence - 1));

        p.makeLeader(TOPIC_ID, new PartitionRegistration(List.of(1, 2), List.of(1, 2), 1, 2, 2, List.of(), List.of(), false),
            log, cut);
        assertThat(p.appendAsLeader(idempotent(nextSequence, 2), 1).firstOffset()).as("the sequence continues")
            .isEqualTo(cut);
    }

    /**
     * The follower's side of {@link EpochWithoutRecordsTest} on a real partition and log: a replica that led epoch 1
     * and wrote nothing in it, now a follower at epoch 2, told by the new leader to truncate at its own log end, drops
     * epoch 1 from its cache, so that its next fetch names epoch 0. Before the fix {@code Partition.truncateTo} skipped
     * the log at its end, and the follower looped (the fault campaign's majority/minority split and power loss).
     */
    @Test
    void aTruncationAtTheLogEndDropsAnEpochLedWithoutRecords() throws Exception {
        Partition p = load(false, new long[1]);
        p.appendAsLeader(idempotent(0, 5), 1);
        p.makeLeader(TOPIC_ID, new PartitionRegistration(List.of(1, 2), List.of(1, 2), 1, 1, 1, List.of(), List.of(), false), log,
            0);
        assertThat(log.latestEpoch()).as("elected at epoch 1, nothing written yet").isEqualTo(1);
        p.makeFollower(TOPIC_ID, new PartitionRegistration(List.of(1, 2), List.of(2), 2, 2, 2, List.of(), List.of(), false),
            log, 0);
        p.truncateTo(log.logEndOffset(), 2);
        assertThat(log.logEndOffset()).isEqualTo(5);
        assertThat(log.latestEpoch()).as("the epoch without records is gone").isZero();
    }
}
