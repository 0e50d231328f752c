package io.raftline.client.common.serialization;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** A UUID as its 36-character UTF-8 string (Kafka's encoding). */
public class UUIDSerializer implements Serializer<UUID> {

    @Override
    public byte[] serialize(String topic, UUID data) {
        return data == null ? null : data.toString().getBytes(StandardCharsets.UTF_8);
    }
}
