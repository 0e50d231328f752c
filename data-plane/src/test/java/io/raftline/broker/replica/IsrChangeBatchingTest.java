package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.Error;
import io.raftline.protocol.controller.AlterPartitionRequest;
import io.raftline.protocol.controller.AlterPartitionResponse;
import io.raftline.protocol.metadata.BrokerState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader's ISR changes go to the controller in one AlterPartition request per check, however many partitions
 * want one (the controller writes them as one Raft entry), and each partition takes its own answer from the
 * batched response. A follower whose broker is fenced is not proposed (the controller would refuse it and hold the
 * partition back for a check period); it is proposed as soon as the leader's metadata shows its broker active.
 */
class IsrChangeBatchingTest {

    private static final int PARTITIONS = 1_000;

    @TempDir
    Path tmp;

    @Test
    void everyPartitionsChangeGoesInOneRequestAndTakesItsOwnAnswer() throws Exception {
        try (ReplicaManagerFixture f = new ReplicaManagerFixture(tmp, PARTITIONS, List.of(1, 2, 3), List.of(1, 2, 3))) {
            // Neither follower has fetched for longer than replica.lag.time.max.ms (30 s): every partition shrinks.
            f.time.advance(30_001);
            f.replicaManager.maybeChangeIsr();

            assertThat(f.alterPartitions).as("one request for all %d partitions", PARTITIONS).hasSize(1);
            AlterPartitionRequest request = f.alterPartitions.get(0);
            assertThat(request.getPartitionsList()).extracting(AlterPartitionRequest.PartitionIsr::getPartition)
                .containsExactlyInAnyOrderElementsOf(IntStream.range(0, PARTITIONS).boxed().toList());
            assertThat(request.getPartitionsList()).allMatch(p -> p.getNewIsrList().equals(List.of(1)));

            f.replicaManager.maybeChangeIsr();
            assertThat(f.alterPartitions).as("changes in flight are not asked for again").hasSize(1);

            // The answers come in another order; partition 7 is refused, the rest accepted.
            List<AlterPartitionResponse.PartitionResult> results = new ArrayList<>();
            for (AlterPartitionRequest.PartitionIsr p : request.getPartitionsList()) {
                AlterPartitionResponse.PartitionResult.Builder r = AlterPartitionResponse.PartitionResult.newBuilder()
                    .setTopicId(p.getTopicId()).setPartition(p.getPartition()).setLeaderEpoch(p.getLeaderEpoch());
                if (p.getPartition() == 7) {
                    r.setError(Error.newBuilder().setCode(ErrorCode.INVALID_UPDATE_VERSION).setMessage("stale"))
                        .addAllIsr(List.of(1, 2, 3)).setPartitionEpoch(p.getPartitionEpoch());
                } else {
                    r.setError(Error.newBuilder().setCode(ErrorCode.NONE)).addAllIsr(p.getNewIsrList())
                        .setPartitionEpoch(p.getPartitionEpoch() + 1);
                }
                results.add(0, r.build());
            }
            f.alterAnswers.get(0).complete(AlterPartitionResponse.newBuilder()
                .setError(Error.newBuilder().setCode(ErrorCode.NONE)).addAllPartitions(results).build());

            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(f.partition(p).isr()).as("partition %d", p).isEqualTo(p == 7 ? List.of(1, 2, 3) : List.of(1));
            }
        }
    }

    @Test
    void aRequestRefusedAsAWholeLeavesEveryPartitionFreeToAskAgain() throws Exception {
        try (ReplicaManagerFixture f = new ReplicaManagerFixture(tmp, 3, List.of(1, 2, 3), List.of(1, 2, 3))) {
            f.time.advance(30_001);
            f.replicaManager.maybeChangeIsr();
            assertThat(f.alterPartitions).hasSize(1);
            f.alterAnswers.get(0).complete(AlterPartitionResponse.newBuilder().setError(Error.newBuilder()
                .setCode(ErrorCode.STALE_BROKER_EPOCH).setMessage("stale broker epoch")).build());
            for (int p = 0; p < 3; p++) {
                assertThat(f.partition(p).isr()).isEqualTo(List.of(1, 2, 3));
            }
            f.time.advance(10_000);
            f.replicaManager.maybeChangeIsr();
            assertThat(f.alterPartitions).as("asked again, still in one request").hasSize(2);
            assertThat(f.alterPartitions.get(1).getPartitionsCount()).isEqualTo(3);
        }
    }

    @Test
    void aCaughtUpFollowerOfAFencedBrokerIsProposedOnceItsBrokerIsActive() throws Exception {
        try (ReplicaManagerFixture f = new ReplicaManagerFixture(tmp, 2, List.of(1, 2, 3), List.of(1, 2))) {
            for (int p = 0; p < 2; p++) {
                f.partition(p).appendAsLeader(PartitionFixture.batch(10), 1);
                fetch(f, 2, p, 10);
            }
            f.brokerState(3, BrokerState.FENCED);
            for (int p = 0; p < 2; p++) {
                fetch(f, 3, p, 10);
            }
            f.replicaManager.maybeChangeIsr();
            assertThat(f.alterPartitions).as("broker 3 is fenced: not proposed, though caught up").isEmpty();

            f.brokerState(3, BrokerState.ACTIVE);
            await().atMost(Duration.ofSeconds(10)).until(() -> !f.alterPartitions.isEmpty());
            assertThat(f.alterPartitions).as("proposed when the metadata shows broker 3 active, in one request").hasSize(1);
            assertThat(f.alterPartitions.get(0).getPartitionsList())
                .allMatch(p -> p.getNewIsrList().equals(List.of(1, 2, 3)))
                .hasSize(2);
        }
    }

    private static void fetch(ReplicaManagerFixture f, int replicaId, int partition, long offset) throws Exception {
        int epoch = ReplicaManagerFixture.LEADER_EPOCH;
        FetchManager.Request request = new FetchManager.Request(replicaId, f.brokerEpoch(replicaId), 0, 0, 1 << 20,
            List.of(new FetchManager.PartitionFetch(new TopicPartition(ReplicaManagerFixture.TOPIC, partition), offset,
                1 << 20, epoch, epoch)));
        assertThat(f.replicaManager.fetchManager().fetch(request).get(10, TimeUnit.SECONDS).get(0).result().error())
            .isEqualTo(ErrorCode.NONE);
    }
}
