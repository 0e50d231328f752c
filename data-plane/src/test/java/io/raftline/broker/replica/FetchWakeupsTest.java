package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How often a parked fetch looks again. A follower's fetch waits on every partition it follows; when all of them
 * change at once (a broker back in every ISR: one ISR change, so one wake-up, per partition) each wake-up used to
 * queue its own look, a read of every partition: N² partition reads. At 10,000 partitions the leader's wake-up thread
 * fell minutes behind (130 s of CPU in seven minutes), the fetch's own timeout queued behind those looks, the
 * follower gave up on its request after 30 s, and the leader dropped it from every ISR, which woke every fetch again.
 */
class FetchWakeupsTest {

    @TempDir
    Path tmp;

    /** Runs what it is given only when the test says so. */
    private static final class HeldExecutor implements Executor {
        private final List<Runnable> queued = new ArrayList<>();

        @Override
        public synchronized void execute(Runnable task) {
            queued.add(task);
        }

        synchronized int queued() {
            return queued.size();
        }

        /** Runs everything queued so far; returns how many. */
        int runQueued() {
            List<Runnable> now;
            synchronized (this) {
                now = new ArrayList<>(queued);
                queued.clear();
            }
            now.forEach(Runnable::run);
            return now.size();
        }
    }

    @Test
    void aChangeOfEveryPartitionOfAParkedFollowerFetchQueuesOneLookNotOnePerPartition() throws Exception {
        int partitions = 200;
        try (ReplicaManagerFixture f = new ReplicaManagerFixture(tmp, partitions, List.of(1, 2, 3), List.of(1, 2, 3))) {
            ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
            HeldExecutor looks = new HeldExecutor();
            FetchManager fetches = new FetchManager(f.replicaManager, scheduler, new ReplicationQuotas(1, f.time, Map.of()),
                looks);
            try {
                List<FetchManager.PartitionFetch> all = new ArrayList<>();
                for (int p = 0; p < partitions; p++) {
                    all.add(new FetchManager.PartitionFetch(new TopicPartition(ReplicaManagerFixture.TOPIC, p), 0, 1 << 20,
                        ReplicaManagerFixture.LEADER_EPOCH, -1));
                }
                CompletableFuture<List<FetchManager.PartitionData>> answer = fetches.fetch(
                    new FetchManager.Request(2, f.brokerEpoch(2), 60_000, 1, 1 << 20, all));
                assertThat(answer).as("nothing to read: the fetch parks").isNotDone();

                for (int p = 0; p < partitions; p++) {
                    fetches.onDataChange(new TopicPartition(ReplicaManagerFixture.TOPIC, p));
                }
                assertThat(looks.queued()).as("looks queued for %d changes", partitions).isEqualTo(1);
                assertThat(looks.runQueued()).isEqualTo(1);
                assertThat(answer).as("still nothing to read").isNotDone();

                // once the look has run, the next change queues another, and that one finds the records
                f.partition(7).appendAsLeader(PartitionFixture.batchAt(0, 10), 1);
                fetches.onDataChange(new TopicPartition(ReplicaManagerFixture.TOPIC, 7));
                fetches.onDataChange(new TopicPartition(ReplicaManagerFixture.TOPIC, 8));
                assertThat(looks.runQueued()).isEqualTo(1);
                assertThat(answer).isDone();
                assertThat(answer.get()).filteredOn(d -> d.result().data() != null && d.result().data().sizeInBytes() > 0)
                    .extracting(d -> d.tp().partition()).containsExactly(7);
                assertThat(fetches.parkedFetches(true)).isZero();
            } finally {
                fetches.close();
                scheduler.shutdownNow();
            }
        }
    }
}
