package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.log.LeaderEpochCache.EpochEntry;
import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogConfig;
import io.raftline.common.ManualTime;
import io.raftline.metadata.image.PartitionRegistration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new leader records where its epoch starts when it takes the role, not at its first append: otherwise a
 * follower whose last epoch lies between the leader's last written epoch and its current one is not told that it
 * diverged, keeps its divergent records and appends the leader's after them.
 */
class LeaderEpochStartTest {

    @TempDir
    Path tmp;

    @Test
    void aFollowerWithAnEpochTheQuietLeaderNeverSawTruncatesItsDivergentTail() throws Exception {
        try (ReplicationPair pair = new ReplicationPair(tmp)) {
            // Epoch 1: broker 2 leads; broker 1 copies 0-4, then falls behind while 2 takes 5-9.
            pair.lead(2, 1, List.of(1, 2));
            pair.partition(2).appendAsLeader(PartitionFixture.batch(5), 1);
            pair.follow(1, 1);
            pair.fetchOnce(1);
            assertThat(pair.batches(1)).containsExactly("0-4@1");
            pair.partition(2).appendAsLeader(PartitionFixture.batch(3), 1);
            pair.partition(2).appendAsLeader(PartitionFixture.batch(1), 1);
            pair.partition(2).appendAsLeader(PartitionFixture.batch(1), 1);

            // Epoch 3 (unclean): broker 1 leads alone and takes 5-7, never replicated.
            pair.lead(1, 3, List.of(1));
            pair.partition(1).appendAsLeader(PartitionFixture.batch(3), 1);
            assertThat(pair.batches(1)).containsExactly("0-4@1", "5-7@3");

            // Epoch 4: broker 2 leads again and writes nothing; broker 1 follows it.
            pair.lead(2, 4, List.of(2));
            pair.follow(1, 4);
            for (int i = 0; i < 4; i++) {
                pair.fetchOnce(1);
            }

            assertThat(pair.batches(1)).as("the follower's log").isEqualTo(pair.batches(2))
                .containsExactly("0-4@1", "5-7@1", "8-8@1", "9-9@1");
            assertThat(pair.log(2).epochCache().entries()).as("broker 2's epochs: 4 starts where it took the role")
                .containsExactly(new EpochEntry(1, 0), new EpochEntry(4, 10));
        }
    }

    /**
     * The entry goes to the checkpoint as every new epoch does (no fsync; durable at the next flush). A reload drops
     * entries at or past the log end, as Kafka's does, so after a restart the leader records it again when it takes
     * the role, before any follower can fetch from it.
     */
    @Test
    void theEpochStartIsCheckpointedAndRecordedAgainAfterARestart() throws Exception {
        Path dir;
        try (ReplicationPair pair = new ReplicationPair(tmp)) {
            pair.lead(2, 1, List.of(1, 2));
            pair.partition(2).appendAsLeader(PartitionFixture.batch(5), 1);
            pair.lead(2, 2, List.of(2));
            assertThat(pair.log(2).endOffsetForEpoch(1).orElseThrow().endOffset()).isEqualTo(5);
            pair.log(2).flush();
            dir = pair.log(2).dir();
            assertThat(Files.readAllLines(dir.resolve("leader-epoch-checkpoint"))).containsExactly("0", "2", "1 0", "2 5");
        }
        ManualTime time = new ManualTime();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        Log reopened = Log.open(dir, "t", 0, null, LogConfig.fromProperties(Map.of(), Map.of()), 5, true, time, scheduler,
            (l, e) -> { });
        try {
            Partition restarted = new Partition(ReplicationPair.TP, 2, time);
            restarted.loadProducerState(reopened);
            restarted.makeLeader(ReplicationPair.TOPIC_ID,
                new PartitionRegistration(List.of(1, 2), List.of(2), 2, 2, 2, List.of(), List.of(), false), reopened, 0);
            assertThat(reopened.epochCache().entries()).containsExactly(new EpochEntry(1, 0), new EpochEntry(2, 5));
        } finally {
            reopened.close();
            scheduler.shutdownNow();
        }
    }
}
