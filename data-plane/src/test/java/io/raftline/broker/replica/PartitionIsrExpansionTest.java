package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogConfig;
import io.raftline.common.ManualTime;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.record.CompressionType;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A follower outside the ISR is proposed for it by the fetch that catches it up, not at the next periodic check. */
class PartitionIsrExpansionTest {

    private static final long BACKOFF_MS = 2_500;

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

    private static ByteBuffer batch(int records) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1, 64);
        for (int i = 0; i < records; i++) {
            b.append(0, null, ("v" + i).getBytes(StandardCharsets.UTF_8), null);
        }
        return b.build();
    }

    @Test
    void theCatchingUpFetchMakesTheFollowerJoinableOnceUntilTheProposalIsAnswered() throws Exception {
        ManualTime time = new ManualTime();
        log = Log.open(tmp.resolve("t-0"), "t", 0, new byte[16], LogConfig.fromProperties(Map.of(), Map.of()), 0, false, time,
            scheduler, (l, e) -> { });
        Partition partition = new Partition(new TopicPartition("t", 0), 1, time);
        PartitionRegistration reg = new PartitionRegistration(List.of(1, 2, 3), List.of(1, 2), 1, 1, 1, List.of(), List.of(), false);
        assertThat(partition.makeLeader(Uuid.fromBytes(new byte[16]), reg, log, 0)).isTrue();
        partition.appendAsLeader(batch(10), -1);

        assertThat(partition.updateFollowerFetchState(2, 10, BACKOFF_MS)).as("an ISR member is never 'joinable'").isFalse();
        assertThat(partition.highWatermark()).isEqualTo(10);
        assertThat(partition.updateFollowerFetchState(3, 5, BACKOFF_MS)).as("behind the high watermark").isFalse();
        assertThat(partition.updateFollowerFetchState(3, 10, BACKOFF_MS)).as("caught up").isTrue();

        Partition.IsrChange change = partition.proposeIsrChange(30_000).orElseThrow();
        assertThat(change.newIsr()).containsExactly(1, 2, 3);
        assertThat(partition.updateFollowerFetchState(3, 10, BACKOFF_MS)).as("a proposal is in flight").isFalse();

        partition.completeIsrChange(change, List.of(), -1, false);
        assertThat(partition.updateFollowerFetchState(3, 10, BACKOFF_MS)).as("refused a moment ago").isFalse();
        time.sleep(BACKOFF_MS);
        assertThat(partition.updateFollowerFetchState(3, 10, BACKOFF_MS)).as("after the refusal backoff").isTrue();

        change = partition.proposeIsrChange(30_000).orElseThrow();
        partition.completeIsrChange(change, List.of(1, 2, 3), 2, true);
        assertThat(partition.isr()).containsExactly(1, 2, 3);
        assertThat(partition.updateFollowerFetchState(3, 10, BACKOFF_MS)).as("in the ISR now").isFalse();
    }
}
