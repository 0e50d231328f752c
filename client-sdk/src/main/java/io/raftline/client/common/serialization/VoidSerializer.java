package io.raftline.client.common.serialization;

/** For records without a key or value: always null. */
public class VoidSerializer implements Serializer<Void> {

    @Override
    public byte[] serialize(String topic, Void data) {
        return null;
    }
}
