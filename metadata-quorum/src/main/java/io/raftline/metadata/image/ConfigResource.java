package io.raftline.metadata.image;

import io.raftline.protocol.metadata.ConfigResourceType;

/** Something that holds dynamic configs: a topic by name, or a broker by id ("" for the cluster default). */
public record ConfigResource(ConfigResourceType type, String name) {

    public static ConfigResource topic(String name) {
        return new ConfigResource(ConfigResourceType.TOPIC, name);
    }

    public static ConfigResource broker(String name) {
        return new ConfigResource(ConfigResourceType.BROKER, name);
    }
}
