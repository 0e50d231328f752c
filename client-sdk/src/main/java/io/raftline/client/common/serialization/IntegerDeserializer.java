package io.raftline.client.common.serialization;

import io.raftline.client.errors.SerializationException;
import java.nio.ByteBuffer;

/** A 32-bit integer from 4 big-endian bytes; any other length is a {@link SerializationException}. */
public class IntegerDeserializer implements Deserializer<Integer> {

    @Override
    public Integer deserialize(String topic, byte[] data) {
        ByteBuffer b = FixedWidth.decode(data, Integer.BYTES, "Integer");
        return b == null ? null : b.getInt();
    }
}
