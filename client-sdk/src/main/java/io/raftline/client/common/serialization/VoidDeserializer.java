package io.raftline.client.common.serialization;

import io.raftline.client.errors.SerializationException;

/** For records without a key or value: null, and anything else is a {@link SerializationException}. */
public class VoidDeserializer implements Deserializer<Void> {

    @Override
    public Void deserialize(String topic, byte[] data) {
        if (data != null) {
            throw new SerializationException("A Void key or value must be null, got " + data.length + " bytes");
        }
        return null;
    }
}
