package io.raftline.client.common.serialization;

import java.nio.ByteBuffer;

/** The record's bytes as a heap {@link ByteBuffer} over them, without a copy. */
public class ByteBufferDeserializer implements Deserializer<ByteBuffer> {

    @Override
    public ByteBuffer deserialize(String topic, byte[] data) {
        return data == null ? null : ByteBuffer.wrap(data);
    }
}
