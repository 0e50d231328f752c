package io.raftline.client.common.serialization;

import java.nio.ByteBuffer;

/**
 * The bytes between a buffer's position and its limit (as Kafka's since 3.4); the buffer's position, limit and
 * contents are left as they were.
 */
public class ByteBufferSerializer implements Serializer<ByteBuffer> {

    @Override
    public byte[] serialize(String topic, ByteBuffer data) {
        if (data == null) {
            return null;
        }
        if (data.hasArray() && data.arrayOffset() == 0 && data.position() == 0 && data.limit() == data.array().length) {
            return data.array();
        }
        byte[] out = new byte[data.remaining()];
        data.duplicate().get(out);
        return out;
    }
}
