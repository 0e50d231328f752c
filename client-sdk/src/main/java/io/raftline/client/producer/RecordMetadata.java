package io.raftline.client.producer;

import io.raftline.client.common.TopicPartition;

/**
 * Where an acknowledged record went. With {@code acks=0} the offset is -1 (nothing was acknowledged).
 */
public final class RecordMetadata {

    /** The offset of an unacknowledged (acks=0) record. */
    public static final long UNKNOWN_OFFSET = -1L;

    private final TopicPartition topicPartition;
    private final long offset;
    private final long timestamp;
    private final int serializedKeySize;
    private final int serializedValueSize;

    /** Creates the metadata; sizes are -1 for a null key or value. */
    public RecordMetadata(TopicPartition topicPartition, long offset, long timestamp, int serializedKeySize, int serializedValueSize) {
        this.topicPartition = topicPartition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.serializedKeySize = serializedKeySize;
        this.serializedValueSize = serializedValueSize;
    }

    /** Whether the offset is known (false with acks=0). */
    public boolean hasOffset() {
        return offset != UNKNOWN_OFFSET;
    }

    /** The record's offset in its partition, or -1. */
    public long offset() {
        return offset;
    }

    /** The record's timestamp: its create time, or the broker's append time under LogAppendTime. */
    public long timestamp() {
        return timestamp;
    }

    /** Bytes of the serialized key, -1 if null. */
    public int serializedKeySize() {
        return serializedKeySize;
    }

    /** Bytes of the serialized value, -1 if null. */
    public int serializedValueSize() {
        return serializedValueSize;
    }

    /** The topic. */
    public String topic() {
        return topicPartition.topic();
    }

    /** The partition. */
    public int partition() {
        return topicPartition.partition();
    }

    @Override
    public String toString() {
        return topicPartition + "@" + offset;
    }
}
