package io.raftline.client.common.serialization;

import java.nio.ByteBuffer;

/** A 64-bit integer as 8 big-endian bytes (Kafka's encoding). */
public class LongSerializer implements Serializer<Long> {

    @Override
    public byte[] serialize(String topic, Long data) {
        return data == null ? null : ByteBuffer.allocate(Long.BYTES).putLong(data).array();
    }
}
