package io.raftline.broker.kafka;

import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.metadata.ConfigResourceType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Kafka's config changes as the controller's {@link AlterConfigsRequest.Op}s, one resource at a time (the controller
 * applies one request's ops all or none, and Kafka answers each resource on its own). Pure: the resource's current
 * configs are passed in. A change this cannot translate is refused with a {@link KafkaRefusal} naming why, and nothing of
 * that resource is sent.
 */
final class KafkaConfigOps {

    /** Kafka's config resource types this listener changes (ConfigResource.Type's ids). */
    static final byte TOPIC = 2;
    static final byte BROKER = 4;

    /** IncrementalAlterConfigs' operations (AlterConfigOp.OpType's ids). */
    static final byte SET = 0;
    static final byte DELETE = 1;
    static final byte APPEND = 2;
    static final byte SUBTRACT = 3;

    /** One of Kafka's config entries in a request: a name, an operation (SET for AlterConfigs) and a value. */
    record Change(String name, byte operation, String value) {
    }

    private KafkaConfigOps() {
    }

    /** Raftline's resource type for Kafka's {@code type} (topics and brokers), or a refusal. */
    static ConfigResourceType resourceType(byte type) throws KafkaRefusal {
        return switch (type) {
            case TOPIC -> ConfigResourceType.TOPIC;
            case BROKER -> ConfigResourceType.BROKER;
            default -> throw new KafkaRefusal("config resource type " + type + " is not served: only topics (2) and brokers (4)");
        };
    }

    /**
     * IncrementalAlterConfigs (KIP-339): SET sets a value, DELETE goes back to the default, APPEND and SUBTRACT add
     * items to or remove them from a list config (the controller reads the current list and refuses other configs).
     */
    static List<AlterConfigsRequest.Op> incremental(byte type, String name, List<Change> changes) throws KafkaRefusal {
        ConfigResourceType ours = resourceType(type);
        List<AlterConfigsRequest.Op> ops = new ArrayList<>(changes.size());
        Set<String> seen = new HashSet<>();
        for (Change c : changes) {
            if (!seen.add(c.name())) {
                throw new KafkaRefusal("config '" + c.name() + "' is named twice");
            }
            AlterConfigsRequest.Op.Builder op = AlterConfigsRequest.Op.newBuilder().setResourceType(ours)
                .setResourceName(name).setName(c.name());
            switch (c.operation()) {
                case SET -> {
                    if (c.value() == null) {
                        throw new KafkaRefusal("SET of config '" + c.name() + "' has no value");
                    }
                    op.setValue(c.value());
                }
                case DELETE -> {
                    // no value: back to the default
                }
                case APPEND, SUBTRACT -> {
                    // the controller applies them to the value in effect, for list configs only (else INVALID_CONFIG)
                    op.setKind(c.operation() == APPEND ? AlterConfigsRequest.Op.Kind.APPEND : AlterConfigsRequest.Op.Kind.SUBTRACT);
                    if (c.value() != null) {
                        op.setValue(c.value());
                    }
                }
                default -> throw new KafkaRefusal("unknown config operation " + c.operation() + " for '" + c.name() + "'");
            }
            ops.add(op.build());
        }
        return ops;
    }

    /**
     * AlterConfigs (the legacy API): the resource's configs become exactly {@code changes}. Each named one is set
     * (a null value deletes it), and each one set on the resource now ({@code current}) but not named goes back to
     * its default, as Kafka's broker does.
     */
    static List<AlterConfigsRequest.Op> replaceAll(byte type, String name, List<Change> changes,
                                                   Map<String, String> current) throws KafkaRefusal {
        List<Change> all = new ArrayList<>(changes.size() + current.size());
        Set<String> named = new HashSet<>();
        for (Change c : changes) {
            named.add(c.name());
            all.add(new Change(c.name(), c.value() == null ? DELETE : SET, c.value()));
        }
        for (String key : new TreeSet<>(current.keySet())) {
            if (!named.contains(key)) {
                all.add(new Change(key, DELETE, null));
            }
        }
        return incremental(type, name, all);
    }
}
