package io.raftline.client.common.serialization;

import io.raftline.client.common.utils.Bytes;

/** {@link Bytes} as its array, unchanged. */
public class BytesSerializer implements Serializer<Bytes> {

    @Override
    public byte[] serialize(String topic, Bytes data) {
        return data == null ? null : data.get();
    }
}
