package io.raftline.client.common.serialization;

/** Bytes as they are. */
public class ByteArrayDeserializer implements Deserializer<byte[]> {

    @Override
    public byte[] deserialize(String topic, byte[] data) {
        return data;
    }
}
