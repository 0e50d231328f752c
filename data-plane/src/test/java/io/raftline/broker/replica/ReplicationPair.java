package io.raftline.broker.replica;

import com.google.protobuf.ByteString;
import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogConfig;
import io.raftline.common.ManualTime;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.EpochEndOffset;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import io.raftline.protocol.metadata.Endpoint;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Replicas of t-0 on brokers 1 and 2, each a real {@link Partition} over a real log in its own directory, on one
 * manual clock. A follower's {@link ReplicaFetcher} is driven by hand: the test takes the request it builds, has the
 * leader's partition answer it as the leader's fetch path would, and hands the answer back, in whatever order and
 * with whatever role changes in between it wants. The fetchers are never started (no thread, no connection).
 */
final class ReplicationPair implements AutoCloseable {

    static final TopicPartition TP = new TopicPartition("t", 0);
    static final Uuid TOPIC_ID = Uuid.fromBytes(new byte[16]);
    static final List<Integer> REPLICAS = List.of(1, 2);
    /** Both brokers' registered epoch, which their fetches carry and the leader checks. */
    static final long BROKER_EPOCH = 7;
    private static final ReplicaFetcherManager.Settings SETTINGS =
        new ReplicaFetcherManager.Settings(500, 1, 1 << 20, 10 << 20, 100, 30_000);

    final ManualTime time = new ManualTime();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final Partition[] partitions = new Partition[3];
    private final Log[] logs = new Log[3];
    private final ReplicaFetcher[] fetchers = new ReplicaFetcher[3];

    ReplicationPair(Path dir) throws IOException {
        this(dir, Map.of());
    }

    /** @param quotas the replication throttles of some brokers' fetchers (the others: none) */
    ReplicationPair(Path dir, Map<Integer, ReplicationQuotas> quotas) throws IOException {
        for (int broker = 1; broker <= 2; broker++) {
            logs[broker] = Log.open(dir.resolve("broker-" + broker).resolve("t-0"), "t", 0, new byte[16],
                LogConfig.fromProperties(Map.of(), Map.of()), 0, false, time, scheduler, (l, e) -> { });
            partitions[broker] = new Partition(TP, broker, time);
            Endpoint endpoint = Endpoint.newBuilder().setName("broker").setHost("127.0.0.1").setPort(1).build();
            fetchers[broker] = new ReplicaFetcher(broker, () -> BROKER_EPOCH, 3 - broker, endpoint, SETTINGS, time,
                quotas.getOrDefault(broker, ReplicationQuotas.none(time)));
        }
    }

    Partition partition(int broker) {
        return partitions[broker];
    }

    Log log(int broker) {
        return logs[broker];
    }

    ReplicaFetcher fetcher(int broker) {
        return fetchers[broker];
    }

    /** {@code broker} leads at {@code epoch} with the given ISR; it stops following. */
    void lead(int broker, int epoch, List<Integer> isr) {
        fetchers[broker].removePartition(TP);
        partitions[broker].makeLeader(TOPIC_ID, registration(broker, epoch, isr), logs[broker], 0);
    }

    /** {@code broker} follows the other broker at {@code epoch} and fetches from it. */
    void follow(int broker, int epoch) {
        follow(broker, epoch, REPLICAS);
    }

    /** {@code broker} follows the other broker at {@code epoch}, the partition's ISR being {@code isr}. */
    void follow(int broker, int epoch, List<Integer> isr) {
        fetchers[broker].removePartition(TP);
        partitions[broker].makeFollower(TOPIC_ID, registration(3 - broker, epoch, isr), logs[broker], 0);
        fetchers[broker].addPartition(TP, epoch, partitions[broker]);
    }

    private static PartitionRegistration registration(int leader, int epoch, List<Integer> isr) {
        return new PartitionRegistration(REPLICAS, isr, leader, epoch, epoch, List.of(), List.of(), false);
    }

    /** One fetch of {@code follower}'s fetcher from the other broker, answered and applied at once. */
    void fetchOnce(int follower) {
        ReplicaFetcher fetcher = fetchers[follower];
        FetchRequest request = fetcher.buildRequest();
        fetcher.apply(request, answer(request, partitions[3 - follower]));
    }

    /** The leader's answer to a follower's request, as its fetch path puts it on the wire. */
    static FetchResponse answer(FetchRequest request, Partition leader) {
        FetchResponse.Builder out = FetchResponse.newBuilder().setCorrelationId(request.getCorrelationId());
        for (FetchRequest.FetchPartition fp : request.getPartitionsList()) {
            FetchCheck.Fetch fetch = new FetchCheck.Fetch(request.getReplicaId(), request.getReplicaEpoch(), fp.getFetchOffset(),
                fp.getCurrentLeaderEpoch(), fp.getLastFetchedEpoch(), fp.getLogStartOffset());
            leader.updateFollowerFetchState(fetch, BROKER_EPOCH, 0);
            Partition.ReadResult r = leader.read(fetch, BROKER_EPOCH, fp.getPartitionMaxBytes());
            FetchResponse.PartitionData.Builder b = FetchResponse.PartitionData.newBuilder()
                .setTopic(fp.getTopic()).setPartition(fp.getPartition())
                .setError(Error.newBuilder().setCode(r.error()).setMessage(r.message() == null ? "" : r.message()))
                .setHighWatermark(r.highWatermark()).setLogStartOffset(r.logStartOffset()).setLogEndOffset(r.logEndOffset());
            if (r.diverging()) {
                b.setDivergingEpoch(EpochEndOffset.newBuilder().setEpoch(r.divergingEpoch()).setEndOffset(r.divergingEndOffset()));
            }
            if (r.error() == ErrorCode.NONE && r.data() != null && r.data().sizeInBytes() > 0) {
                b.setRecords(ByteString.copyFrom(r.data().readIntoBuffer()));
            }
            out.addPartitions(b);
        }
        return out.build();
    }

    /** Every batch of a broker's log as {@code base-last@epoch}, in offset order. */
    List<String> batches(int broker) {
        Log l = logs[broker];
        List<String> out = new ArrayList<>();
        if (l.logEndOffset() == l.logStartOffset()) {
            return out;
        }
        for (RecordBatch b : Records.batches(l.read(l.logStartOffset(), Integer.MAX_VALUE, l.logEndOffset(), true)
            .readIntoBuffer())) {
            out.add(b.baseOffset() + "-" + b.lastOffset() + "@" + b.partitionLeaderEpoch());
        }
        return out;
    }

    @Override
    public void close() {
        for (int broker = 1; broker <= 2; broker++) {
            fetchers[broker].close();
            logs[broker].close();
        }
        scheduler.shutdownNow();
    }
}
