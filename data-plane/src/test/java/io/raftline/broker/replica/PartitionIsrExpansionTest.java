package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A follower outside the ISR is proposed for it by the fetch that catches it up, not at the next periodic check. */
class PartitionIsrExpansionTest {

    private static final long BACKOFF_MS = 2_500;

    @TempDir
    Path tmp;

    @Test
    void theCatchingUpFetchMakesTheFollowerJoinableOnceUntilTheProposalIsAnswered() throws Exception {
        try (PartitionFixture f = new PartitionFixture(tmp, List.of(1, 2, 3), List.of(1, 2))) {
            Partition partition = f.partition;
            partition.appendAsLeader(PartitionFixture.batch(10), -1);

            assertThat(f.followerFetch(2, 10, BACKOFF_MS)).as("an ISR member is never 'joinable'").isFalse();
            assertThat(partition.highWatermark()).isEqualTo(10);
            assertThat(f.followerFetch(3, 5, BACKOFF_MS)).as("behind the high watermark").isFalse();
            assertThat(f.followerFetch(3, 10, BACKOFF_MS)).as("caught up").isTrue();

            PartitionState.IsrChange change = partition.proposeIsrChange(30_000, id -> PartitionFixture.FOLLOWER_BROKER_EPOCH).orElseThrow();
            assertThat(change.newIsr()).containsExactly(1, 2, 3);
            assertThat(f.followerFetch(3, 10, BACKOFF_MS)).as("a proposal is in flight").isFalse();

            partition.completeIsrChange(change, List.of(), -1, false);
            assertThat(f.followerFetch(3, 10, BACKOFF_MS)).as("refused a moment ago").isFalse();
            f.time.sleep(BACKOFF_MS);
            assertThat(f.followerFetch(3, 10, BACKOFF_MS)).as("after the refusal backoff").isTrue();

            change = partition.proposeIsrChange(30_000, id -> PartitionFixture.FOLLOWER_BROKER_EPOCH).orElseThrow();
            partition.completeIsrChange(change, List.of(1, 2, 3), 2, true);
            assertThat(partition.isr()).containsExactly(1, 2, 3);
            assertThat(f.followerFetch(3, 10, BACKOFF_MS)).as("in the ISR now").isFalse();
        }
    }

    @Test
    void aRefusedFollowerThatStopsFetchingIsNotProposedAgain() throws Exception {
        try (PartitionFixture f = new PartitionFixture(tmp, List.of(1, 2, 3), List.of(1, 2))) {
            Partition partition = f.partition;
            partition.appendAsLeader(PartitionFixture.batch(10), -1);
            f.followerFetch(2, 10, BACKOFF_MS);
            f.followerFetch(3, 10, BACKOFF_MS);
            PartitionState.IsrChange change = partition.proposeIsrChange(30_000, id -> PartitionFixture.FOLLOWER_BROKER_EPOCH).orElseThrow();
            partition.completeIsrChange(change, List.of(), -1, false);

            // broker 3 died (fenced): still caught up by offsets, as nothing more was written
            f.time.sleep(BACKOFF_MS);
            assertThat(partition.proposeIsrChange(30_000, id -> PartitionFixture.FOLLOWER_BROKER_EPOCH)).as("no fetch since the refusal").isEmpty();
            f.time.sleep(BACKOFF_MS);
            assertThat(partition.proposeIsrChange(30_000, id -> PartitionFixture.FOLLOWER_BROKER_EPOCH)).as("still none").isEmpty();

            // it comes back and fetches
            f.followerFetch(3, 10, BACKOFF_MS);
            assertThat(partition.proposeIsrChange(30_000, id -> PartitionFixture.FOLLOWER_BROKER_EPOCH).orElseThrow().newIsr()).containsExactly(1, 2, 3);
        }
    }
}
