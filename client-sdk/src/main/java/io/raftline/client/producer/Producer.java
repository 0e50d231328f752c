package io.raftline.client.producer;

import io.raftline.client.common.PartitionInfo;
import java.io.Closeable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;

/**
 * Sends records to a Raftline cluster, shaped like Kafka's {@code Producer}. Thread-safe: share one instance.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface Producer<K, V> extends Closeable {

    /** Sends a record asynchronously; the future completes when it is acknowledged (or fails). */
    Future<RecordMetadata> send(ProducerRecord<K, V> record);

    /** Sends a record asynchronously and calls {@code callback} on completion. */
    Future<RecordMetadata> send(ProducerRecord<K, V> record, Callback callback);

    /** Sends every buffered record now and blocks until all records sent before this call completed. */
    void flush();

    /** The partitions of {@code topic}, fetching metadata if needed (up to {@code max.block.ms}). */
    List<PartitionInfo> partitionsFor(String topic);

    /** Sends what is buffered, waits for it, and releases resources. */
    @Override
    void close();

    /** As {@link #close()}, waiting at most {@code timeout}; records still unsent then fail. */
    void close(Duration timeout);
}
