package io.raftline.broker.replica;

import com.google.protobuf.ByteString;
import io.raftline.broker.log.LogConfig;
import io.raftline.broker.log.LogManager;
import io.raftline.common.ManualTime;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.BrokerRegistration;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.controller.AlterPartitionRequest;
import io.raftline.protocol.controller.AlterPartitionResponse;
import io.raftline.protocol.metadata.BrokerState;
import io.raftline.protocol.metadata.BrokerStateRecord;
import io.raftline.protocol.metadata.ConfigRecord;
import io.raftline.protocol.metadata.ConfigResourceType;
import io.raftline.protocol.metadata.Endpoint;
import io.raftline.protocol.metadata.IntList;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.PartitionChangeRecord;
import io.raftline.protocol.metadata.PartitionRecord;
import io.raftline.protocol.metadata.RegisterBrokerRecord;
import io.raftline.protocol.metadata.RemoveTopicRecord;
import io.raftline.protocol.metadata.TopicRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A real {@link ReplicaManager} of broker 1 over real logs in a temp dir, fed a metadata image built from records:
 * brokers 1..3 registered and active, and topic {@code t} whose partitions broker 1 leads at leader epoch 1. No
 * controller: the ISR changes it asks for are recorded in {@link #alterPartitions}, and answered only when a test
 * completes the matching future in {@link #alterAnswers}.
 */
public final class ReplicaManagerFixture implements AutoCloseable {

    public static final String TOPIC = "t";
    public static final int LEADER_EPOCH = 1;

    public final ManualTime time = new ManualTime();
    public final ReplicaManager replicaManager;
    public final List<AlterPartitionRequest> alterPartitions = new CopyOnWriteArrayList<>();
    public final List<CompletableFuture<AlterPartitionResponse>> alterAnswers = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
    private final LogManager logManager;
    private volatile MetadataImage image;
    private long index;

    /** Broker 1 leads {@code partitions} partitions of {@code t}, each with these replicas and ISR. */
    public ReplicaManagerFixture(Path dir, int partitions, List<Integer> replicas, List<Integer> isr) {
        logManager = new LogManager(List.of(dir), LogConfig.fromProperties(Map.of(), Map.of()), time, scheduler);
        logManager.startup();
        replicaManager = new ReplicaManager(1, time, logManager, Map.of(), scheduler, request -> {
            CompletableFuture<AlterPartitionResponse> answer = new CompletableFuture<>();
            alterAnswers.add(answer);
            alterPartitions.add(request);
            return answer;
        }, () -> brokerEpoch(1), 30_000, new ReplicaFetcherManager.Settings(500, 1, 1 << 20, 10 << 20, 1_000, 30_000));
        MetadataImage current = MetadataImage.EMPTY;
        long index = 0;
        for (int b = 1; b <= 3; b++) {
            current = replay(current, ++index, MetadataImage.wrap(MetadataRecord.newBuilder().setRegisterBroker(
                RegisterBrokerRecord.newBuilder().setBrokerId(b).setIncarnationId("inc-" + b).setFenced(true)
                    .addEndpoints(Endpoint.newBuilder().setName("broker").setHost("127.0.0.1").setPort(19_000 + b)))));
            current = replay(current, ++index, MetadataImage.wrap(MetadataRecord.newBuilder().setBrokerState(
                BrokerStateRecord.newBuilder().setBrokerId(b).setBrokerEpoch(index - 1).setState(BrokerState.ACTIVE))));
        }
        Uuid topicId = Uuid.fromBytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
        MetadataDelta delta = new MetadataDelta(current);
        delta.replay(MetadataImage.wrap(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName(TOPIC)
            .setTopicId(ByteString.copyFrom(topicId.bytes())))), ++index);
        for (int p = 0; p < partitions; p++) {
            delta.replay(MetadataImage.wrap(MetadataRecord.newBuilder().setPartition(PartitionRecord.newBuilder()
                .setTopicId(ByteString.copyFrom(topicId.bytes())).setPartition(p).addAllReplicas(replicas).addAllIsr(isr)
                .setLeader(1).setLeaderEpoch(LEADER_EPOCH).setPartitionEpoch(1))), index);
        }
        delta.apply(index);
        image = delta.image();
        this.index = index;
        replicaManager.applyDelta(delta, image);
    }

    /** Sets ({@code value} non-null) or removes a dynamic config, as a committed ConfigRecord reaches the broker. */
    public void config(ConfigResourceType type, String resource, String name, String value) {
        ConfigRecord.Builder c = ConfigRecord.newBuilder().setResourceType(type).setResourceName(resource).setName(name);
        if (value != null) {
            c.setValue(value);
        }
        MetadataDelta delta = MetadataDelta.replayAll(image, ++index, List.of(MetadataImage.wrap(
            MetadataRecord.newBuilder().setConfig(c))));
        image = delta.image();
        replicaManager.applyDelta(delta, image);
    }

    /** Broker {@code id} moves to {@code state} at its current epoch, as a committed BrokerStateRecord brings it. */
    public void brokerState(int id, BrokerState state) {
        MetadataDelta delta = MetadataDelta.replayAll(image, ++index, List.of(MetadataImage.wrap(MetadataRecord.newBuilder()
            .setBrokerState(BrokerStateRecord.newBuilder().setBrokerId(id).setBrokerEpoch(brokerEpoch(id)).setState(state)))));
        image = delta.image();
        replicaManager.applyDelta(delta, image);
    }

    /** Removes topic {@code t}, as a committed RemoveTopicRecord reaches the broker: its replicas leave it. */
    public void deleteTopic() {
        Uuid topicId = image.topicIdsByName().get(TOPIC);
        MetadataDelta delta = MetadataDelta.replayAll(image, ++index, List.of(MetadataImage.wrap(
            MetadataRecord.newBuilder().setRemoveTopic(RemoveTopicRecord.newBuilder()
                .setTopicId(ByteString.copyFrom(topicId.bytes()))))));
        image = delta.image();
        replicaManager.applyDelta(delta, image);
    }

    /**
     * Broker 1 loses and retakes the lead of {@code partition} in one metadata delta, as two committed elections
     * bring it: the leader epoch goes up by two and the ISR becomes {@code isr}.
     */
    public void leadAgain(int partition, List<Integer> isr) {
        Partition p = partition(partition);
        ByteString topicId = ByteString.copyFrom(p.topicId().bytes());
        MetadataDelta delta = MetadataDelta.replayAll(image, ++index, List.of(
            MetadataImage.wrap(MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord.newBuilder()
                .setTopicId(topicId).setPartition(partition).setLeader(-1))),
            MetadataImage.wrap(MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord.newBuilder()
                .setTopicId(topicId).setPartition(partition).setLeader(1).setIsr(IntList.newBuilder().addAllValues(isr))))));
        image = delta.image();
        replicaManager.applyDelta(delta, image);
    }

    public LogManager logManager() {
        return logManager;
    }

    /**
     * A fetch of {@code partition} by follower {@code replicaId} at {@code offset} whose last record has
     * {@code lastFetchedEpoch}, as a well-behaved follower sends it.
     */
    public void followerFetch(int partition, int replicaId, long offset, int lastFetchedEpoch) {
        Partition p = partition(partition);
        FetchCheck.Fetch fetch = new FetchCheck.Fetch(replicaId, brokerEpoch(replicaId), offset, p.leaderEpoch(), lastFetchedEpoch);
        p.updateFollowerFetchState(fetch, brokerEpoch(replicaId), 1_000);
    }

    private static MetadataImage replay(MetadataImage base, long index, MetadataRecord record) {
        return MetadataDelta.replayAll(base, index, List.of(record)).image();
    }

    /** The epoch broker {@code id}'s registration holds in the image (what its follower fetches must carry). */
    public long brokerEpoch(int id) {
        return image == null ? -1 : image.broker(id).map(BrokerRegistration::epoch).orElse(-1L);
    }

    public Partition partition(int p) {
        return replicaManager.partition(new TopicPartition(TOPIC, p)).orElseThrow();
    }

    @Override
    public void close() {
        replicaManager.close();
        logManager.shutdown();
        scheduler.shutdownNow();
    }
}
