package io.raftline.client.common.serialization;

import io.raftline.client.errors.SerializationException;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/** Kafka's big-endian encodings of fixed-width numbers, shared by the number (de)serializers. */
final class FixedWidth {

    private FixedWidth() {
    }

    /** {@code width} bytes written by {@code put}, or null for a null value. */
    static <T> byte[] encode(T value, int width, Consumer<ByteBuffer> put) {
        if (value == null) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.allocate(width);
        put.accept(buffer);
        return buffer.array();
    }

    /** The bytes to read a {@code type} from: null stays null, any length but {@code width} is refused. */
    static ByteBuffer decode(byte[] data, int width, String type) {
        if (data == null) {
            return null;
        }
        if (data.length != width) {
            throw new SerializationException("A value of type " + type + " needs " + width + " bytes, got " + data.length);
        }
        return ByteBuffer.wrap(data);
    }
}
