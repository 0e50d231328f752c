package io.raftline.client.consumer;

import io.raftline.client.common.TimestampType;
import io.raftline.client.common.header.Headers;
import java.util.Optional;

/**
 * One record as the consumer returns it.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class ConsumerRecord<K, V> {

    /** The size of a null key or value. */
    public static final int NULL_SIZE = -1;

    private final String topic;
    private final int partition;
    private final long offset;
    private final long timestamp;
    private final TimestampType timestampType;
    private final int serializedKeySize;
    private final int serializedValueSize;
    private final Headers headers;
    private final K key;
    private final V value;
    private final Optional<Integer> leaderEpoch;

    /** The full form. */
    public ConsumerRecord(String topic, int partition, long offset, long timestamp, TimestampType timestampType, int serializedKeySize,
                          int serializedValueSize, K key, V value, Headers headers, Optional<Integer> leaderEpoch) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.timestampType = timestampType;
        this.serializedKeySize = serializedKeySize;
        this.serializedValueSize = serializedValueSize;
        this.key = key;
        this.value = value;
        this.headers = headers;
        this.leaderEpoch = leaderEpoch;
    }

    /** A record with no timestamp or headers (for tests and tools). */
    public ConsumerRecord(String topic, int partition, long offset, K key, V value) {
        this(topic, partition, offset, -1L, TimestampType.NO_TIMESTAMP_TYPE, NULL_SIZE, NULL_SIZE, key, value, new Headers(),
            Optional.empty());
    }

    /** The topic. */
    public String topic() {
        return topic;
    }

    /** The partition. */
    public int partition() {
        return partition;
    }

    /** The record's offset. */
    public long offset() {
        return offset;
    }

    /** The record's timestamp. */
    public long timestamp() {
        return timestamp;
    }

    /** What the timestamp means. */
    public TimestampType timestampType() {
        return timestampType;
    }

    /** Bytes of the serialized key, -1 if null. */
    public int serializedKeySize() {
        return serializedKeySize;
    }

    /** Bytes of the serialized value, -1 if null. */
    public int serializedValueSize() {
        return serializedValueSize;
    }

    /** The headers. */
    public Headers headers() {
        return headers;
    }

    /** The key, or null. */
    public K key() {
        return key;
    }

    /** The value, or null. */
    public V value() {
        return value;
    }

    /** The epoch of the leader that appended the record, if known. */
    public Optional<Integer> leaderEpoch() {
        return leaderEpoch;
    }

    @Override
    public String toString() {
        return "ConsumerRecord(topic = " + topic + ", partition = " + partition + ", offset = " + offset + ", " + timestampType
            + " = " + timestamp + ", key = " + key + ", value = " + value + ")";
    }
}
