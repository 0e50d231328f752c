package io.raftline.broker.replica;

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

/** A real log in a temp dir under a partition that broker 1 leads, on a manual clock (for partition unit tests). */
final class PartitionFixture implements AutoCloseable {

    final ManualTime time = new ManualTime();
    final Partition partition = new Partition(new TopicPartition("t", 0), 1, time);
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final Log log;

    /** Broker 1 leads t-0 with these replicas and ISR (leader epoch 1, partition epoch 1). */
    PartitionFixture(Path dir, List<Integer> replicas, List<Integer> isr) throws java.io.IOException {
        log = Log.open(dir.resolve("t-0"), "t", 0, new byte[16], LogConfig.fromProperties(Map.of(), Map.of()), 0, false, time,
            scheduler, (l, e) -> { });
        PartitionRegistration reg = new PartitionRegistration(replicas, isr, 1, 1, 1, List.of(), List.of(), false);
        if (!partition.makeLeader(Uuid.fromBytes(new byte[16]), reg, log, 0)) {
            throw new IllegalStateException("broker 1 did not become the leader");
        }
    }

    /** The broker epoch every follower of this fixture is registered with. */
    static final long FOLLOWER_BROKER_EPOCH = 7;

    /**
     * A fetch by follower {@code replicaId} at {@code offset}, as a well-behaved follower sends it (this leader's
     * epoch, its registered broker epoch, last fetched epoch 1 once it holds records): see
     * {@link Partition#updateFollowerFetchState}.
     */
    boolean followerFetch(int replicaId, long offset, long refusalBackoffMs) {
        FetchCheck.Fetch fetch = new FetchCheck.Fetch(replicaId, FOLLOWER_BROKER_EPOCH, offset, 1, offset == 0 ? -1 : 1);
        return partition.updateFollowerFetchState(fetch, FOLLOWER_BROKER_EPOCH, refusalBackoffMs);
    }

    /** One batch of {@code records} small records. */
    static ByteBuffer batch(int records) {
        return batchAt(0, records);
    }

    /** One batch of {@code records} small records from {@code baseOffset}, as a leader at epoch 0 stores it. */
    static ByteBuffer batchAt(long baseOffset, int records) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, baseOffset, -1, (short) -1,
            -1, 64);
        b.setPartitionLeaderEpoch(0);
        for (int i = 0; i < records; i++) {
            b.append(0, null, ("v" + i).getBytes(StandardCharsets.UTF_8), null);
        }
        return b.build();
    }

    @Override
    public void close() {
        log.close();
        scheduler.shutdownNow();
    }
}
