package io.raftline.client.producer;

import io.raftline.client.common.header.Header;
import io.raftline.client.common.header.Headers;
import java.util.Objects;

/**
 * A record to send: a topic, optionally a partition (else the partitioner picks one), a timestamp (else the time of
 * {@code send}), a key, a value and headers.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class ProducerRecord<K, V> {

    private final String topic;
    private final Integer partition;
    private final Headers headers;
    private final K key;
    private final V value;
    private final Long timestamp;

    /** The full form; {@code partition}, {@code timestamp}, {@code key}, {@code headers} may be null. */
    public ProducerRecord(String topic, Integer partition, Long timestamp, K key, V value, Iterable<Header> headers) {
        this.topic = Objects.requireNonNull(topic, "topic");
        if (partition != null && partition < 0) {
            throw new IllegalArgumentException("Invalid partition " + partition + ": it must not be negative");
        }
        if (timestamp != null && timestamp < 0) {
            throw new IllegalArgumentException("Invalid timestamp " + timestamp + ": it must not be negative");
        }
        this.partition = partition;
        this.timestamp = timestamp;
        this.key = key;
        this.value = value;
        this.headers = new Headers(headers);
    }

    /** A record for an explicit partition with a timestamp. */
    public ProducerRecord(String topic, Integer partition, Long timestamp, K key, V value) {
        this(topic, partition, timestamp, key, value, null);
    }

    /** A record for an explicit partition with headers. */
    public ProducerRecord(String topic, Integer partition, K key, V value, Iterable<Header> headers) {
        this(topic, partition, null, key, value, headers);
    }

    /** A record for an explicit partition. */
    public ProducerRecord(String topic, Integer partition, K key, V value) {
        this(topic, partition, null, key, value, null);
    }

    /** A keyed record; the key decides the partition. */
    public ProducerRecord(String topic, K key, V value) {
        this(topic, null, null, key, value, null);
    }

    /** A record without key: spread over partitions. */
    public ProducerRecord(String topic, V value) {
        this(topic, null, null, null, value, null);
    }

    /** The topic. */
    public String topic() {
        return topic;
    }

    /** The partition asked for, or null. */
    public Integer partition() {
        return partition;
    }

    /** The headers (writable until the record is sent). */
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

    /** The timestamp asked for, or null. */
    public Long timestamp() {
        return timestamp;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProducerRecord<?, ?> r && topic.equals(r.topic) && Objects.equals(partition, r.partition)
            && Objects.equals(timestamp, r.timestamp) && Objects.equals(key, r.key) && Objects.equals(value, r.value)
            && headers.equals(r.headers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, timestamp, key, value, headers);
    }

    @Override
    public String toString() {
        return "ProducerRecord(topic=" + topic + ", partition=" + partition + ", headers=" + headers + ", key=" + key
            + ", value=" + value + ", timestamp=" + timestamp + ")";
    }
}
