package io.raftline.client.common.serialization;

/** A 32-bit IEEE 754 number as 4 big-endian bytes (Kafka's encoding). */
public class FloatSerializer implements Serializer<Float> {

    @Override
    public byte[] serialize(String topic, Float data) {
        return FixedWidth.encode(data, Float.BYTES, b -> b.putFloat(data));
    }
}
