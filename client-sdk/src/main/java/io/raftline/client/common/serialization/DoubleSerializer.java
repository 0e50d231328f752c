package io.raftline.client.common.serialization;

/** A 64-bit IEEE 754 number as 8 big-endian bytes (Kafka's encoding). */
public class DoubleSerializer implements Serializer<Double> {

    @Override
    public byte[] serialize(String topic, Double data) {
        return FixedWidth.encode(data, Double.BYTES, b -> b.putDouble(data));
    }
}
