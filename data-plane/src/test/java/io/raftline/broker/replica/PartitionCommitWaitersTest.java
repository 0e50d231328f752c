package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogConfig;
import io.raftline.common.ManualTime;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.protocol.ErrorCode;
import io.raftline.record.CompressionType;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The acks=all waiters of a leader whose high watermark does not move: a produce that gave up takes its waiter away. */
class PartitionCommitWaitersTest {

    @TempDir
    Path tmp;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private Log log;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
        scheduler.shutdownNow();
    }

    private static ByteBuffer batch(String value) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1, 64);
        b.append(0, null, value.getBytes(StandardCharsets.UTF_8), null);
        return b.build();
    }

    @Test
    void timedOutWaitersAreForgottenAndTheRestCompleteWhenTheFollowerCatchesUp() throws Exception {
        ManualTime time = new ManualTime();
        log = Log.open(tmp.resolve("t-0"), "t", 0, new byte[16], LogConfig.fromProperties(Map.of(), Map.of()), 0, false, time,
            scheduler, (l, e) -> { });
        Partition partition = new Partition(new TopicPartition("t", 0), 1, time);
        PartitionRegistration reg = new PartitionRegistration(List.of(1, 2), List.of(1, 2), 1, 1, 1, List.of(), List.of(), false);
        assertThat(partition.makeLeader(Uuid.fromBytes(new byte[16]), reg, log, 0)).isTrue();

        List<CompletableFuture<ErrorCode>> waiters = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Partition.AppendResult r = partition.appendAsLeader(batch("v" + i), -1);
            CompletableFuture<ErrorCode> f = partition.awaitCommitted(r.lastOffset());
            waiters.add(f);
            if (i < 99) {
                // Broker 2 never fetches: every produce but the last times out and gives its waiter up.
                partition.forgetCommitWaiter(r.lastOffset(), f);
            }
        }
        assertThat(partition.commitWaiters()).isEqualTo(1);
        assertThat(waiters).allMatch(f -> !f.isDone());

        partition.updateFollowerFetchState(2, 100, 0);
        assertThat(waiters.get(99)).isCompletedWithValue(ErrorCode.NONE);
        assertThat(partition.commitWaiters()).isZero();
        assertThat(waiters.subList(0, 99)).as("forgotten waiters are never completed").allMatch(f -> !f.isDone());
    }
}
