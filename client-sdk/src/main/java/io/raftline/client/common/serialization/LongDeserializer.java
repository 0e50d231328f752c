package io.raftline.client.common.serialization;

import io.raftline.client.errors.SerializationException;
import java.nio.ByteBuffer;

/** A 64-bit integer from 8 big-endian bytes; any other length is a {@link SerializationException}. */
public class LongDeserializer implements Deserializer<Long> {

    @Override
    public Long deserialize(String topic, byte[] data) {
        ByteBuffer b = FixedWidth.decode(data, Long.BYTES, "Long");
        return b == null ? null : b.getLong();
    }
}
