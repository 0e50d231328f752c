package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.metadata.ConfigResourceType;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader replication throttle on a real broker's fetch path: broker 1 leads t-0 with replicas 1, 2, 3 and ISR
 * 1, 2; its replica is listed in {@code leader.replication.throttled.replicas} and its rate is set dynamically. The
 * out-of-sync follower 3 gets records within the rate (one batch may overshoot, then nothing until the debt is paid
 * back on the injected clock); the in-sync follower 2 is never held back; removing the configs lifts the throttle.
 */
class LeaderThrottleTest {

    private static final int EPOCH = ReplicaManagerFixture.LEADER_EPOCH;

    @TempDir
    Path tmp;

    @Test
    void anOutOfSyncFollowerOfAThrottledReplicaGetsRecordsWithinTheRate() throws Exception {
        try (ReplicaManagerFixture f = new ReplicaManagerFixture(tmp, 1, List.of(1, 2, 3), List.of(1, 2))) {
            for (int i = 0; i < 5; i++) {
                f.partition(0).appendAsLeader(PartitionFixture.batchAt(0, 10), 1);
            }
            f.config(ConfigResourceType.TOPIC, ReplicaManagerFixture.TOPIC, "leader.replication.throttled.replicas", "0:1");
            f.config(ConfigResourceType.BROKER, "1", "leader.replication.throttled.rate", "100");

            FetchManager.PartitionData first = fetch(f, 3, 0);
            assertThat(first.result().error()).isEqualTo(ErrorCode.NONE);
            int batchBytes = first.result().data().sizeInBytes();
            assertThat(batchBytes).as("one batch, though it is larger than the 100 bytes allowed").isGreaterThan(100);
            assertThat(first.result().logEndOffset()).isEqualTo(50);
            long next = 10;

            FetchManager.PartitionData held = fetch(f, 3, next);
            assertThat(held.result().error()).isEqualTo(ErrorCode.NONE);
            assertThat(held.result().data().sizeInBytes()).as("in debt: no records").isZero();
            assertThat(held.result().highWatermark()).as("but the offsets").isEqualTo(0);
            assertThat(fetch(f, 2, 0).result().data().sizeInBytes()).as("an in-sync follower is not throttled")
                .isEqualTo(5 * batchBytes);

            // the debt (batchBytes - 100) is paid back at 100 B/s
            long paidBackMs = (batchBytes - 100) * 1000L / 100;
            f.time.advance(paidBackMs - 10);
            assertThat(fetch(f, 3, next).result().data().sizeInBytes()).as("still in debt").isZero();
            f.time.advance(20);
            assertThat(fetch(f, 3, next).result().data().sizeInBytes()).as("paid back: one more batch")
                .isEqualTo(batchBytes);
            next += 10;
            assertThat(fetch(f, 3, next).result().data().sizeInBytes()).isZero();

            // a new rate applies at once (the debt stays, paid back faster); removing the replica list lifts the throttle
            f.config(ConfigResourceType.BROKER, "1", "leader.replication.throttled.rate", "1000000");
            f.time.advance(10);
            assertThat(fetch(f, 3, next).result().data().sizeInBytes()).as("10 ms at 1 MB/s: room for the rest")
                .isEqualTo(3 * batchBytes);
            f.config(ConfigResourceType.BROKER, "1", "leader.replication.throttled.rate", "1");
            f.time.advance(1000);
            fetch(f, 3, 0);
            assertThat(fetch(f, 3, 0).result().data().sizeInBytes()).isZero();
            f.config(ConfigResourceType.TOPIC, ReplicaManagerFixture.TOPIC, "leader.replication.throttled.replicas", null);
            assertThat(fetch(f, 3, 0).result().data().sizeInBytes()).isEqualTo(5 * batchBytes);
        }
    }

    private static FetchManager.PartitionData fetch(ReplicaManagerFixture f, int replicaId, long offset) throws Exception {
        FetchManager.Request request = new FetchManager.Request(replicaId, f.brokerEpoch(replicaId), 0, 0, 1 << 20,
            List.of(new FetchManager.PartitionFetch(new TopicPartition(ReplicaManagerFixture.TOPIC, 0), offset, 1 << 20,
                EPOCH, offset == 0 ? -1 : EPOCH)));
        return f.replicaManager.fetchManager().fetch(request).get(10, TimeUnit.SECONDS).get(0);
    }
}
