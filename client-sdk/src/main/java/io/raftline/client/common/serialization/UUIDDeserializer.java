package io.raftline.client.common.serialization;

import io.raftline.client.errors.SerializationException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** A UUID from its UTF-8 string form; anything else is a {@link SerializationException}. */
public class UUIDDeserializer implements Deserializer<UUID> {

    @Override
    public UUID deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        String text = new String(data, StandardCharsets.UTF_8);
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw new SerializationException("Not a UUID: " + text, e);
        }
    }
}
