package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.protocol.ErrorCode;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Follower fetches through a real broker's fetch path (FetchManager, ReplicaManager, Partition, log): only a fetch
 * from a replica of the partition, carrying that broker's registered epoch, at the leader's epoch and with a log
 * that does not diverge from the leader's, moves what the leader knows of the follower (its log end offset, which
 * drives the high watermark and ISR expansion).
 */
class FollowerFetchTest {

    private static final int EPOCH = ReplicaManagerFixture.LEADER_EPOCH;

    @TempDir
    Path tmp;

    @Test
    void aFollowerInTheIsrWithTheRightEpochsMovesTheHighWatermark() throws Exception {
        try (ReplicaManagerFixture f = new ReplicaManagerFixture(tmp, 1, List.of(1, 2), List.of(1, 2))) {
            f.partition(0).appendAsLeader(PartitionFixture.batch(10), 1);

            FetchManager.PartitionData answer = fetch(f, 2, f.brokerEpoch(2), 10, EPOCH, EPOCH);
            assertThat(answer.result().error()).isEqualTo(ErrorCode.NONE);
            assertThat(answer.result().highWatermark()).as("the answer carries the high watermark it moved").isEqualTo(10);
            assertThat(f.partition(0).followerEndOffsets()).containsEntry(2, 10L);
        }
    }

    @Test
    void aDivergentFollowerInTheIsrDoesNotMoveTheHighWatermark() throws Exception {
        // Broker 3 led epoch 0 and kept appending alone up to offset 15; broker 1 leads epoch 1 and wrote 0..9.
        try (ReplicaManagerFixture f = new ReplicaManagerFixture(tmp, 1, List.of(1, 3), List.of(1, 3))) {
            f.partition(0).appendAsLeader(PartitionFixture.batch(10), 1);

            FetchManager.PartitionData answer = fetch(f, 3, f.brokerEpoch(3), 15, EPOCH, 0);
            assertThat(answer.result().diverging()).as("told where its log diverged").isTrue();
            assertThat(answer.result().divergingEndOffset()).isZero();
            assertThat(f.partition(0).highWatermark()).as("offsets 0..9 are on the leader alone").isZero();
            assertThat(f.partition(0).followerEndOffsets()).containsEntry(3, -1L);
        }
    }

    @Test
    void aDivergentFollowerOutsideTheIsrIsNotProposedForIt() throws Exception {
        try (ReplicaManagerFixture f = new ReplicaManagerFixture(tmp, 1, List.of(1, 2, 3), List.of(1, 2))) {
            Partition partition = f.partition(0);
            partition.appendAsLeader(PartitionFixture.batch(10), 1);
            assertThat(fetch(f, 2, f.brokerEpoch(2), 10, EPOCH, EPOCH).result().error()).isEqualTo(ErrorCode.NONE);
            assertThat(partition.highWatermark()).isEqualTo(10);

            assertThat(fetch(f, 3, f.brokerEpoch(3), 12, EPOCH, 0).result().diverging()).isTrue();
            assertThat(partition.followerEndOffsets()).containsEntry(3, -1L);
            assertThat(partition.proposeIsrChange(30_000, id -> PartitionFixture.FOLLOWER_BROKER_EPOCH)).as("broker 3 holds none of the committed offsets").isEmpty();
            assertThat(f.alterPartitions).isEmpty();
        }
    }

    @Test
    void aFetchNamingAReplicaWithoutItsRegisteredBrokerEpochMovesNothing() throws Exception {
        try (ReplicaManagerFixture f = new ReplicaManagerFixture(tmp, 1, List.of(1, 2), List.of(1, 2))) {
            f.partition(0).appendAsLeader(PartitionFixture.batch(10), 1);

            // A client claiming to be broker 2, or broker 2's previous incarnation: not the epoch it registered with.
            FetchManager.PartitionData answer = fetch(f, 2, f.brokerEpoch(2) - 1, 10, EPOCH, EPOCH);
            assertThat(answer.result().error()).isEqualTo(ErrorCode.STALE_BROKER_EPOCH);
            assertThat(answer.result().data()).isNull();
            assertThat(f.partition(0).highWatermark()).isZero();
            assertThat(f.partition(0).followerEndOffsets()).containsEntry(2, -1L);
        }
    }

    @Test
    void aFetchNamingABrokerOutsideTheReplicaSetIsRefusedAndReadsNothing() throws Exception {
        try (ReplicaManagerFixture f = new ReplicaManagerFixture(tmp, 1, List.of(1, 2), List.of(1, 2))) {
            f.partition(0).appendAsLeader(PartitionFixture.batch(10), 1);

            // Broker 3 is registered but holds no replica of t-0: a follower fetch would read past the high watermark.
            FetchManager.PartitionData answer = fetch(f, 3, f.brokerEpoch(3), 0, EPOCH, -1);
            assertThat(answer.result().error()).isEqualTo(ErrorCode.INELIGIBLE_REPLICA);
            assertThat(answer.result().data()).as("no uncommitted record leaves the leader").isNull();
            assertThat(f.partition(0).highWatermark()).isZero();
            assertThat(f.partition(0).followerEndOffsets()).doesNotContainKey(3);
        }
    }

    private static FetchManager.PartitionData fetch(ReplicaManagerFixture f, int replicaId, long brokerEpoch, long offset,
                                                    int currentLeaderEpoch, int lastFetchedEpoch) throws Exception {
        FetchManager.Request request = new FetchManager.Request(replicaId, brokerEpoch, 0, 0, 1 << 20,
            List.of(new FetchManager.PartitionFetch(new TopicPartition(ReplicaManagerFixture.TOPIC, 0), offset, 1 << 20,
                currentLeaderEpoch, lastFetchedEpoch)));
        return f.replicaManager.fetchManager().fetch(request).get(10, TimeUnit.SECONDS).get(0);
    }
}
