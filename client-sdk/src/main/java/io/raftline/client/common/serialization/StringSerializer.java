package io.raftline.client.common.serialization;

import java.nio.charset.StandardCharsets;

/** UTF-8 strings. */
public class StringSerializer implements Serializer<String> {

    @Override
    public byte[] serialize(String topic, String data) {
        return data == null ? null : data.getBytes(StandardCharsets.UTF_8);
    }
}
