package io.raftline.client.common.serialization;

import io.raftline.client.common.utils.Bytes;

/** The record's bytes as {@link Bytes}, without a copy. */
public class BytesDeserializer implements Deserializer<Bytes> {

    @Override
    public Bytes deserialize(String topic, byte[] data) {
        return Bytes.wrap(data);
    }
}
