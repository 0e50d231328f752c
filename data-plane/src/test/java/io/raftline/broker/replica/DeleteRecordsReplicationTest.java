package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.protocol.ErrorCode;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records deleted on the leader (its log start offset moved by a delete-records request) are deleted on the
 * follower by its next fetch, so a follower that becomes leader afterwards starts its log at the same offset; the
 * request is answered (with the low watermark) only once every follower in the ISR has said, in a fetch, that it
 * has moved its log start offset.
 */
class DeleteRecordsReplicationTest {

    @TempDir
    Path tmp;

    @Test
    void theFollowerTakesTheLeadersLogStartOffsetAndKeepsItAsLeader() throws Exception {
        try (ReplicationPair pair = new ReplicationPair(tmp)) {
            pair.lead(2, 1, List.of(1, 2));
            pair.partition(2).appendAsLeader(PartitionFixture.batch(4), 1);
            pair.partition(2).appendAsLeader(PartitionFixture.batch(6), 1);
            pair.follow(1, 1);
            pair.fetchOnce(1);
            pair.fetchOnce(1);
            assertThat(pair.partition(2).highWatermark()).isEqualTo(10);

            assertThat(pair.partition(2).deleteRecordsBefore(6)).isEqualTo(6);
            assertThat(pair.log(1).logStartOffset()).as("not fetched yet").isZero();
            pair.fetchOnce(1);
            assertThat(pair.log(1).logStartOffset()).isEqualTo(6);

            pair.lead(1, 2, List.of(1, 2));
            pair.follow(2, 2);
            FetchCheck.Fetch below = new FetchCheck.Fetch(-1, -1, 5, 2, -1);
            assertThat(pair.partition(1).read(below, -1, 1 << 20).error()).isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE);
            FetchCheck.Fetch atStart = new FetchCheck.Fetch(-1, -1, 6, 2, -1);
            assertThat(pair.partition(1).read(atStart, -1, 1 << 20).logStartOffset()).isEqualTo(6);
        }
    }

    @Test
    void theLeaderRefusesAnOffsetAboveTheHighWatermarkAndTakesMinusOneForIt() throws Exception {
        try (ReplicationPair pair = new ReplicationPair(tmp)) {
            pair.lead(2, 1, List.of(2));
            pair.partition(2).appendAsLeader(PartitionFixture.batch(5), 1);
            assertThat(pair.partition(2).highWatermark()).isEqualTo(5);
            assertThatThrownBy(() -> pair.partition(2).deleteRecordsBefore(6)).isInstanceOf(ReplicaException.class)
                .extracting(e -> ((ReplicaException) e).code()).isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE);
            assertThatThrownBy(() -> pair.partition(2).deleteRecordsBefore(-2)).isInstanceOf(ReplicaException.class)
                .extracting(e -> ((ReplicaException) e).code()).isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE);
            assertThat(pair.log(2).logStartOffset()).isZero();
            assertThat(pair.partition(2).deleteRecordsBefore(-1)).isEqualTo(5);
            assertThatThrownBy(() -> pair.partition(1).deleteRecordsBefore(1)).isInstanceOf(ReplicaException.class)
                .extracting(e -> ((ReplicaException) e).code()).isEqualTo(ErrorCode.NOT_LEADER);
        }
    }

    @Test
    void theAnswerWaitsForTheIsrToReportTheNewLogStartOffset() throws Exception {
        try (ReplicationPair pair = new ReplicationPair(tmp)) {
            pair.lead(2, 1, List.of(1, 2));
            pair.partition(2).appendAsLeader(PartitionFixture.batch(10), 1);
            pair.follow(1, 1);
            pair.fetchOnce(1);
            pair.fetchOnce(1);

            assertThat(pair.partition(2).deleteRecordsBefore(4)).isEqualTo(4);
            CompletableFuture<Long> low = pair.partition(2).awaitLowWatermark(4);
            assertThat(low).as("the follower still starts at 0").isNotDone();
            pair.fetchOnce(1);
            assertThat(pair.log(1).logStartOffset()).as("the follower moved its start from the answer").isEqualTo(4);
            assertThat(low).as("the leader has not heard it from the follower yet").isNotDone();
            pair.fetchOnce(1);
            assertThat(low).isCompletedWithValue(4L);
            assertThat(pair.partition(2).awaitLowWatermark(3)).as("already reached").isCompletedWithValue(4L);

            pair.partition(2).deleteRecordsBefore(7);
            CompletableFuture<Long> lost = pair.partition(2).awaitLowWatermark(7);
            pair.follow(2, 2);
            assertThat(lost).as("the leadership went first").isCompletedExceptionally();
        }
    }

    @Test
    void aFollowerOutsideTheIsrIsNotWaitedFor() throws Exception {
        try (ReplicationPair pair = new ReplicationPair(tmp)) {
            pair.lead(2, 1, List.of(2));
            pair.partition(2).appendAsLeader(PartitionFixture.batch(5), 1);
            pair.partition(2).deleteRecordsBefore(5);
            assertThat(pair.partition(2).awaitLowWatermark(5)).isCompletedWithValue(5L);
        }
    }
}
