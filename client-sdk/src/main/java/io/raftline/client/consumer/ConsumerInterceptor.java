package io.raftline.client.consumer;

import io.raftline.client.common.TopicPartition;
import java.util.Map;

/**
 * Sees (and may replace) the records each poll returns, and the offsets committed. Interceptors listed in
 * {@code interceptor.classes} run in that order; an exception thrown by one is logged and skipped.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface ConsumerInterceptor<K, V> extends AutoCloseable {

    /** Receives the consumer's config. */
    default void configure(Map<String, ?> configs) {
    }

    /** Called before {@code poll} returns; returns the records to hand to the application. */
    ConsumerRecords<K, V> onConsume(ConsumerRecords<K, V> records);

    /** Called after offsets were committed. */
    void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets);

    @Override
    default void close() {
    }
}
