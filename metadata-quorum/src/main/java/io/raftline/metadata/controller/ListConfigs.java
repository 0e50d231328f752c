package io.raftline.metadata.controller;

import io.raftline.common.config.ConfigDef;
import io.raftline.common.config.TopicConfig;
import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.metadata.ConfigResourceType;
import java.util.ArrayList;
import java.util.List;

/**
 * IncrementalAlterConfigs' APPEND and SUBTRACT (KIP-339) on list configs: which configs are lists, and a list's new
 * value. Pure; the controller passes in the value the resource has now.
 */
final class ListConfigs {

    private ListConfigs() {
    }

    /**
     * Whether {@code name} is a list config of that resource type: a topic's {@code cleanup.policy} and throttled
     * replica lists, a broker's {@code log.cleanup.policy} (the topics' default). Unknown names are not lists.
     */
    static boolean isList(ConfigResourceType type, String name) {
        String topicName = switch (type) {
            case TOPIC -> name;
            case BROKER -> TopicConfigs.topicNameOfBrokerKey(name).orElse(null);
            default -> null;
        };
        if (topicName == null || !TopicConfigs.isKnown(topicName)) {
            return false;
        }
        return TopicConfig.DEF.keys().get(topicName).type() == ConfigDef.Type.LIST;
    }

    /**
     * {@code current} (comma-separated; null or blank: an empty list) with each item of {@code items} appended where
     * missing (APPEND, in the order given) or removed where present (SUBTRACT). Items are trimmed; empty ones are
     * ignored. The result is comma-separated without spaces.
     */
    static String apply(String current, AlterConfigsRequest.Op.Kind kind, String items) {
        List<String> list = split(current);
        for (String item : split(items)) {
            switch (kind) {
                case APPEND -> {
                    if (!list.contains(item)) {
                        list.add(item);
                    }
                }
                case SUBTRACT -> list.removeIf(item::equals);
                default -> throw new IllegalArgumentException("not a list operation: " + kind);
            }
        }
        return String.join(",", list);
    }

    private static List<String> split(String value) {
        List<String> out = new ArrayList<>();
        if (value == null) {
            return out;
        }
        for (String part : value.split(",")) {
            String item = part.trim();
            if (!item.isEmpty()) {
                out.add(item);
            }
        }
        return out;
    }
}
