package io.raftline.broker.group;

import io.raftline.protocol.HostPort;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Everything the group coordinator needs from the rest of the broker: the {@code __consumer_offsets} partitions it
 * leads, the metadata image (leaders, endpoints), and the high watermarks it reports as log end offsets. The broker
 * implements it over its replica manager and metadata image; tests use an in-memory fake.
 *
 * <p>Methods may be called from any thread. {@link #append} is called while the coordinator holds its lock (so that
 * the log follows the order of its decisions): it must not block, and must not call back into the coordinator; it may
 * complete its future on the calling thread. {@link #partitionCount} is read once, at construction. The topic must be
 * compacted ({@code cleanup.policy=compact}) so that only the last record per key survives.
 */
public interface OffsetsTopic {

    String NAME = "__consumer_offsets";

    /** {@code offsets.topic.num.partitions}: fixed for the life of the cluster. */
    int partitionCount();

    /** The partition holding a group's records: {@link #partitionFor(String, int)} with this topic's count. */
    default int partitionFor(String groupId) {
        return partitionFor(groupId, partitionCount());
    }

    /**
     * {@code abs(groupId.hashCode()) % partitionCount}, with abs as Kafka's {@code Utils.abs}: Integer.MIN_VALUE maps
     * to 0. A group keeps its partition (and so its records) for the life of the cluster.
     */
    static int partitionFor(String groupId, int partitionCount) {
        int h = groupId.hashCode();
        int abs = h == Integer.MIN_VALUE ? 0 : Math.abs(h);
        return abs % partitionCount;
    }

    /** Whether the topic exists in this broker's metadata image. */
    boolean exists();

    /** Asks the controller to create the topic (idempotent; completes once the controller has answered). */
    CompletableFuture<Void> ensureExists();

    /** The partition's leader in this broker's metadata image; empty when it has none (or the topic is missing). */
    OptionalInt leaderOf(int partition);

    /** A live broker's advertised data-plane endpoint; empty when unknown or fenced. */
    Optional<HostPort> brokerEndpoint(int brokerId);

    /**
     * Appends one batch as the partition's leader with acks=all. The batch comes with base offset 0 and no leader
     * epoch: the leader assigns both as for a produced batch. The future completes with the batch's base offset once
     * the high watermark has passed the batch, or fails with an {@link OffsetsTopicException} (NOT_LEADER,
     * NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT, ...). The coordinator gives up on its own after
     * {@code offsets.commit.timeout.ms}. Must not block (see the class comment).
     */
    CompletableFuture<Long> append(int partition, ByteBuffer batch);

    /**
     * Hands every batch this leader holds from {@code fromOffset} to its log end offset, in order, to {@code batches},
     * on the calling thread, then returns. Not only below the high watermark: a new leader's high watermark can lag
     * behind records its predecessor acknowledged, and the new leader's log is the truth.
     *
     * @throws OffsetsTopicException if the partition cannot be read here (NOT_LEADER, STORAGE_ERROR)
     */
    void readAll(int partition, long fromOffset, Consumer<ByteBuffer> batches);

    /** The high watermark of a partition this broker leads; empty otherwise (the admin asks the leader instead). */
    OptionalLong highWatermark(String topic, int partition);
}
