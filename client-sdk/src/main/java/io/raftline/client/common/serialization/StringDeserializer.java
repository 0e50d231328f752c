package io.raftline.client.common.serialization;

import java.nio.charset.StandardCharsets;

/** UTF-8 strings. */
public class StringDeserializer implements Deserializer<String> {

    @Override
    public String deserialize(String topic, byte[] data) {
        return data == null ? null : new String(data, StandardCharsets.UTF_8);
    }
}
