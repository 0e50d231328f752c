package io.raftline.broker;

import io.raftline.broker.group.OffsetsTopic;
import io.raftline.broker.group.OffsetsTopicException;
import io.raftline.broker.log.Log;
import io.raftline.broker.replica.Partition;
import io.raftline.broker.replica.ReplicaManager;
import io.raftline.broker.replica.TopicPartition;
import io.raftline.metadata.client.ControllerChannel;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.HostPort;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** The group coordinator's view of {@code __consumer_offsets}, over this broker's replica manager and metadata. */
final class BrokerOffsetsTopic implements OffsetsTopic {

    private static final int READ_CHUNK_BYTES = 1 << 20;

    private final ReplicaManager replicas;
    private final ControllerChannel controller;
    private final int partitionCount;
    private final int commitTimeoutMs;

    BrokerOffsetsTopic(ReplicaManager replicas, ControllerChannel controller, int partitionCount, int commitTimeoutMs) {
        this.replicas = replicas;
        this.controller = controller;
        this.partitionCount = partitionCount;
        this.commitTimeoutMs = commitTimeoutMs;
    }

    @Override
    public int partitionCount() {
        return partitionCount;
    }

    @Override
    public boolean exists() {
        return replicas.image().topic(NAME).isPresent();
    }

    @Override
    public CompletableFuture<Void> ensureExists() {
        if (exists()) {
            return CompletableFuture.completedFuture(null);
        }
        CreateTopicsRequest request = CreateTopicsRequest.newBuilder()
            .addTopics(CreatableTopic.newBuilder().setName(NAME).setNumPartitions(-1).setReplicationFactor(-1))
            .build();
        return controller.createTopics(request).thenAccept(response -> {
            for (var result : response.getTopicsList()) {
                ErrorCode code = result.getError().getCode();
                if (code != ErrorCode.NONE && code != ErrorCode.TOPIC_ALREADY_EXISTS) {
                    throw new OffsetsTopicException(ErrorCode.COORDINATOR_NOT_AVAILABLE,
                        "cannot create " + NAME + ": " + result.getError().getMessage());
                }
            }
        });
    }

    @Override
    public OptionalInt leaderOf(int partition) {
        Optional<TopicImage> topic = replicas.image().topic(NAME);
        if (topic.isEmpty()) {
            return OptionalInt.empty();
        }
        PartitionRegistration p = topic.get().partition(partition);
        return p == null || !p.hasLeader() ? OptionalInt.empty() : OptionalInt.of(p.leader());
    }

    @Override
    public Optional<HostPort> brokerEndpoint(int brokerId) {
        MetadataImage image = replicas.image();
        return image.broker(brokerId)
            .filter(b -> !b.fenced())
            .flatMap(b -> b.endpoint("broker"))
            .map(e -> HostPort.newBuilder().setHost(e.getHost()).setPort(e.getPort()).build());
    }

    @Override
    public CompletableFuture<Long> append(int partition, ByteBuffer batch) {
        TopicPartition tp = new TopicPartition(NAME, partition);
        return replicas.appendRecords(-1, commitTimeoutMs, Map.of(tp, batch)).thenApply(results -> {
            ReplicaManager.ProduceResult r = results.get(tp);
            if (r.error() != ErrorCode.NONE) {
                throw new OffsetsTopicException(r.error(), r.message());
            }
            return r.baseOffset();
        });
    }

    @Override
    public void readAll(int partition, long fromOffset, Consumer<ByteBuffer> batches) {
        Partition p = replicas.partition(new TopicPartition(NAME, partition))
            .orElseThrow(() -> new OffsetsTopicException(ErrorCode.NOT_LEADER, "no replica of " + NAME + "-" + partition));
        Log log = p.log();
        if (!p.isLeader() || log == null) {
            throw new OffsetsTopicException(ErrorCode.NOT_LEADER, "not the leader of " + NAME + "-" + partition);
        }
        long offset = Math.max(fromOffset, log.logStartOffset());
        long end = log.logEndOffset();
        while (offset < end) {
            ByteBuffer chunk = log.read(offset, READ_CHUNK_BYTES, end, true).readIntoBuffer();
            long next = offset;
            for (RecordBatch batch : Records.batches(chunk)) {
                batches.accept(batch.slice());
                next = batch.nextOffset();
            }
            if (next == offset) {
                break;
            }
            offset = next;
        }
    }

    @Override
    public OptionalLong highWatermark(String topic, int partition) {
        return replicas.partition(new TopicPartition(topic, partition))
            .filter(Partition::isLeader)
            .map(p -> OptionalLong.of(p.highWatermark()))
            .orElse(OptionalLong.empty());
    }
}
