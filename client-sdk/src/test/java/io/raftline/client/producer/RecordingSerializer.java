package io.raftline.client.producer;

import io.raftline.client.common.serialization.StringSerializer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A value serializer, named in the config by class, that records the map its configure() was given. */
public final class RecordingSerializer extends StringSerializer {

    static final Map<String, Object> CONFIGURED = new ConcurrentHashMap<>();

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        CONFIGURED.putAll(configs);
    }
}
