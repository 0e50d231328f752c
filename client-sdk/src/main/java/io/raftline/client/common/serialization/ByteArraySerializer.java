package io.raftline.client.common.serialization;

/** Bytes as they are. */
public class ByteArraySerializer implements Serializer<byte[]> {

    @Override
    public byte[] serialize(String topic, byte[] data) {
        return data;
    }
}
