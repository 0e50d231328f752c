package io.raftline.client.common.serialization;

import io.raftline.client.errors.SerializationException;
import java.nio.ByteBuffer;

/** A 16-bit integer from 2 big-endian bytes; any other length is a {@link SerializationException}. */
public class ShortDeserializer implements Deserializer<Short> {

    @Override
    public Short deserialize(String topic, byte[] data) {
        ByteBuffer b = FixedWidth.decode(data, Short.BYTES, "Short");
        return b == null ? null : b.getShort();
    }
}
