package io.raftline.client.producer;

import java.util.Map;

/**
 * Sees (and may replace) every record before it is serialized, and every acknowledgement. Interceptors listed in
 * {@code interceptor.classes} run in that order; an exception thrown by one is logged and does not stop the send.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface ProducerInterceptor<K, V> extends AutoCloseable {

    /** Receives the producer's config. */
    default void configure(Map<String, ?> configs) {
    }

    /** Called in {@code send} before serialization; returns the record to send (the same or a new one). */
    ProducerRecord<K, V> onSend(ProducerRecord<K, V> record);

    /** Called on the I/O thread when a record is acknowledged or fails; must be fast. */
    void onAcknowledgement(RecordMetadata metadata, Exception exception);

    @Override
    default void close() {
    }
}
