package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.protocol.ErrorCode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The acks=all waiters of a leader whose high watermark does not move: a produce that gave up takes its waiter away. */
class PartitionCommitWaitersTest {

    @TempDir
    Path tmp;

    @Test
    void timedOutWaitersAreForgottenAndTheRestCompleteWhenTheFollowerCatchesUp() throws Exception {
        try (PartitionFixture f = new PartitionFixture(tmp, List.of(1, 2), List.of(1, 2))) {
            Partition partition = f.partition;
            List<CompletableFuture<ErrorCode>> waiters = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                Partition.AppendResult r = partition.appendAsLeader(PartitionFixture.batch(1), -1);
                CompletableFuture<ErrorCode> future = partition.awaitCommitted(r.lastOffset());
                waiters.add(future);
                if (i < 99) {
                    // Broker 2 never fetches: every produce but the last times out and gives its waiter up.
                    partition.forgetCommitWaiter(r.lastOffset(), future);
                }
            }
            assertThat(partition.commitWaiters()).isEqualTo(1);
            assertThat(waiters).allMatch(w -> !w.isDone());

            f.followerFetch(2, 100, 0);
            assertThat(waiters.get(99)).isCompletedWithValue(ErrorCode.NONE);
            assertThat(partition.commitWaiters()).isZero();
            assertThat(waiters.subList(0, 99)).as("forgotten waiters are never completed").allMatch(w -> !w.isDone());
        }
    }
}
