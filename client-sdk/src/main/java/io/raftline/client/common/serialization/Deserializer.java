package io.raftline.client.common.serialization;

import io.raftline.client.common.header.Headers;
import java.io.Closeable;
import java.util.Map;

/**
 * Turns bytes back into a key or value. Implementations need a public no-argument constructor when named in config
 * ({@code key.deserializer}, {@code value.deserializer}).
 *
 * @param <T> the type produced
 */
public interface Deserializer<T> extends Closeable {

    /** Receives the client's config; {@code isKey} says whether this instance deserializes keys. */
    default void configure(Map<String, ?> configs, boolean isKey) {
    }

    /** The object for {@code data} (null for null bytes). */
    T deserialize(String topic, byte[] data);

    /** As {@link #deserialize(String, byte[])}, with the record's headers. */
    default T deserialize(String topic, Headers headers, byte[] data) {
        return deserialize(topic, data);
    }

    @Override
    default void close() {
    }
}
