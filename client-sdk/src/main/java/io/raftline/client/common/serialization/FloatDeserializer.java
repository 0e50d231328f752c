package io.raftline.client.common.serialization;

import io.raftline.client.errors.SerializationException;
import java.nio.ByteBuffer;

/** A 32-bit IEEE 754 number from 4 big-endian bytes; any other length is a {@link SerializationException}. */
public class FloatDeserializer implements Deserializer<Float> {

    @Override
    public Float deserialize(String topic, byte[] data) {
        ByteBuffer b = FixedWidth.decode(data, Float.BYTES, "Float");
        return b == null ? null : b.getFloat();
    }
}
