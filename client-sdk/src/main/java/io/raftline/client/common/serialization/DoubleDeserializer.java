package io.raftline.client.common.serialization;

import io.raftline.client.errors.SerializationException;
import java.nio.ByteBuffer;

/** A 64-bit IEEE 754 number from 8 big-endian bytes; any other length is a {@link SerializationException}. */
public class DoubleDeserializer implements Deserializer<Double> {

    @Override
    public Double deserialize(String topic, byte[] data) {
        ByteBuffer b = FixedWidth.decode(data, Double.BYTES, "Double");
        return b == null ? null : b.getDouble();
    }
}
