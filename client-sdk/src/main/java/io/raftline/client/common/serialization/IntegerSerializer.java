package io.raftline.client.common.serialization;

import java.nio.ByteBuffer;

/** A 32-bit integer as 4 big-endian bytes (Kafka's encoding). */
public class IntegerSerializer implements Serializer<Integer> {

    @Override
    public byte[] serialize(String topic, Integer data) {
        return data == null ? null : ByteBuffer.allocate(Integer.BYTES).putInt(data).array();
    }
}
