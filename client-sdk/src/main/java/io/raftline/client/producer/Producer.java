package io.raftline.client.producer;

import io.raftline.client.common.MetricName;

import io.raftline.client.common.PartitionInfo;
import java.io.Closeable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

    /**
     * The client's own metrics as they are now: each statistic of each meter (records sent, errors, batch sizes,
     * request latency per broker ...), named with its tags. The same meters go to the application's registry when
     * one was given.
     */
    Map<MetricName, Double> metrics();
}
