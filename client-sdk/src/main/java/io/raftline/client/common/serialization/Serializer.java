package io.raftline.client.common.serialization;

import io.raftline.client.common.header.Headers;
import java.io.Closeable;
import java.util.Map;

/**
 * Turns a key or value into bytes. Implementations need a public no-argument constructor when named in config
 * ({@code key.serializer}, {@code value.serializer}).
 *
 * @param <T> the type serialized
 */
public interface Serializer<T> extends Closeable {

    /** Receives the client's config; {@code isKey} says whether this instance serializes keys. */
    default void configure(Map<String, ?> configs, boolean isKey) {
    }

    /** The bytes of {@code data} (null for a null input). */
    byte[] serialize(String topic, T data);

    /** As {@link #serialize(String, Object)}, with the record's headers, which the serializer may add to. */
    default byte[] serialize(String topic, Headers headers, T data) {
        return serialize(topic, data);
    }

    @Override
    default void close() {
    }
}
