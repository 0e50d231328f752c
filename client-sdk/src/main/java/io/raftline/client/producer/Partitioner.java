package io.raftline.client.producer;

import io.raftline.client.common.Cluster;
import java.io.Closeable;
import java.util.Map;

/**
 * Picks the partition of a record that names none ({@code partitioner.class}). The default is Kafka's: murmur2 of
 * the serialized key modulo the partition count, and sticky batches for records without a key.
 */
public interface Partitioner extends Closeable {

    /** Receives the producer's config. */
    default void configure(Map<String, ?> configs) {
    }

    /**
     * The partition for the record, in {@code [0, partition count)} of {@code topic} in {@code cluster}.
     *
     * @param keyBytes the serialized key, or null
     */
    int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes, Cluster cluster);

    @Override
    default void close() {
    }
}
