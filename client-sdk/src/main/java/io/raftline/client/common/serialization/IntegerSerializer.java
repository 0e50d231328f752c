package io.raftline.client.common.serialization;

/** A 32-bit integer as 4 big-endian bytes (Kafka's encoding). */
public class IntegerSerializer implements Serializer<Integer> {

    @Override
    public byte[] serialize(String topic, Integer data) {
        return FixedWidth.encode(data, Integer.BYTES, b -> b.putInt(data));
    }
}
