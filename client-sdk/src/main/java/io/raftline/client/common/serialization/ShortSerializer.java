package io.raftline.client.common.serialization;

/** A 16-bit integer as 2 big-endian bytes (Kafka's encoding). */
public class ShortSerializer implements Serializer<Short> {

    @Override
    public byte[] serialize(String topic, Short data) {
        return FixedWidth.encode(data, Short.BYTES, b -> b.putShort(data));
    }
}
