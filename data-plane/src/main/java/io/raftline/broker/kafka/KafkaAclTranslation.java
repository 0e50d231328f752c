package io.raftline.broker.kafka;

import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.acl.AclFilter;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.PatternType;
import io.raftline.protocol.acl.Permission;
import io.raftline.protocol.acl.ResourceType;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;

/**
 * Kafka's ACL enums (by their wire codes) as Raftline's, both ways: the one table the ACL APIs of the Kafka listener
 * use. In a filter Kafka's ANY is Raftline's UNSPECIFIED; Kafka's MATCH pattern filter and the resource types and
 * operations Raftline has no twin for (delegation tokens, users, TWO_PHASE_COMMIT, ...) are refused with a
 * {@link KafkaRefusal} naming them.
 */
final class KafkaAclTranslation {

    private KafkaAclTranslation() {
    }

    static ResourceType resourceType(byte kafka, boolean filter) throws KafkaRefusal {
        return switch (org.apache.kafka.common.resource.ResourceType.fromCode(kafka)) {
            case ANY -> anyOrRefuse(filter, ResourceType.RESOURCE_TYPE_UNSPECIFIED, "resource type ANY");
            case TOPIC -> ResourceType.TOPIC;
            case GROUP -> ResourceType.GROUP;
            case CLUSTER -> ResourceType.CLUSTER;
            case TRANSACTIONAL_ID -> ResourceType.TRANSACTIONAL_ID;
            default -> throw new KafkaRefusal("ACLs on resource type " + kafka + " are not served: topics, groups, "
                + "the cluster and transactional ids");
        };
    }

    static byte resourceType(ResourceType ours) {
        return switch (ours) {
            case TOPIC -> org.apache.kafka.common.resource.ResourceType.TOPIC.code();
            case GROUP -> org.apache.kafka.common.resource.ResourceType.GROUP.code();
            case CLUSTER -> org.apache.kafka.common.resource.ResourceType.CLUSTER.code();
            case TRANSACTIONAL_ID -> org.apache.kafka.common.resource.ResourceType.TRANSACTIONAL_ID.code();
            default -> org.apache.kafka.common.resource.ResourceType.UNKNOWN.code();
        };
    }

    static PatternType patternType(byte kafka, boolean filter) throws KafkaRefusal {
        return switch (org.apache.kafka.common.resource.PatternType.fromCode(kafka)) {
            case ANY -> anyOrRefuse(filter, PatternType.PATTERN_TYPE_UNSPECIFIED, "pattern type ANY");
            case LITERAL -> PatternType.LITERAL;
            case PREFIXED -> PatternType.PREFIXED;
            default -> throw new KafkaRefusal("pattern type " + kafka + " is not served: LITERAL and PREFIXED"
                + (filter ? ", or ANY in a filter" : ""));
        };
    }

    static byte patternType(PatternType ours) {
        return switch (ours) {
            case LITERAL -> org.apache.kafka.common.resource.PatternType.LITERAL.code();
            case PREFIXED -> org.apache.kafka.common.resource.PatternType.PREFIXED.code();
            default -> org.apache.kafka.common.resource.PatternType.UNKNOWN.code();
        };
    }

    static Operation operation(byte kafka, boolean filter) throws KafkaRefusal {
        return switch (AclOperation.fromCode(kafka)) {
            case ANY -> anyOrRefuse(filter, Operation.OPERATION_UNSPECIFIED, "operation ANY");
            case ALL -> Operation.ALL;
            case READ -> Operation.READ;
            case WRITE -> Operation.WRITE;
            case CREATE -> Operation.CREATE;
            case DELETE -> Operation.DELETE;
            case ALTER -> Operation.ALTER;
            case DESCRIBE -> Operation.DESCRIBE;
            case CLUSTER_ACTION -> Operation.CLUSTER_ACTION;
            case DESCRIBE_CONFIGS -> Operation.DESCRIBE_CONFIGS;
            case ALTER_CONFIGS -> Operation.ALTER_CONFIGS;
            case IDEMPOTENT_WRITE -> Operation.IDEMPOTENT_WRITE;
            default -> throw new KafkaRefusal("ACL operation " + kafka + " is not served");
        };
    }

    static byte operation(Operation ours) {
        AclOperation kafka = switch (ours) {
            case ALL -> AclOperation.ALL;
            case READ -> AclOperation.READ;
            case WRITE -> AclOperation.WRITE;
            case CREATE -> AclOperation.CREATE;
            case DELETE -> AclOperation.DELETE;
            case ALTER -> AclOperation.ALTER;
            case DESCRIBE -> AclOperation.DESCRIBE;
            case CLUSTER_ACTION -> AclOperation.CLUSTER_ACTION;
            case DESCRIBE_CONFIGS -> AclOperation.DESCRIBE_CONFIGS;
            case ALTER_CONFIGS -> AclOperation.ALTER_CONFIGS;
            case IDEMPOTENT_WRITE -> AclOperation.IDEMPOTENT_WRITE;
            default -> AclOperation.UNKNOWN;
        };
        return kafka.code();
    }

    static Permission permission(byte kafka, boolean filter) throws KafkaRefusal {
        return switch (AclPermissionType.fromCode(kafka)) {
            case ANY -> anyOrRefuse(filter, Permission.PERMISSION_UNSPECIFIED, "permission ANY");
            case ALLOW -> Permission.ALLOW;
            case DENY -> Permission.DENY;
            default -> throw new KafkaRefusal("permission type " + kafka + " is not ALLOW or DENY");
        };
    }

    static byte permission(Permission ours) {
        return (ours == Permission.DENY ? AclPermissionType.DENY : ours == Permission.ALLOW ? AclPermissionType.ALLOW
            : AclPermissionType.UNKNOWN).code();
    }

    private static <T> T anyOrRefuse(boolean filter, T any, String what) throws KafkaRefusal {
        if (!filter) {
            throw new KafkaRefusal(what + " only matches in a filter; an ACL names one");
        }
        return any;
    }

    /** One ACL as Kafka's CreateAcls names it. */
    static AclBinding binding(byte resourceType, String resourceName, byte patternType, String principal, String host,
                              byte operation, byte permission) throws KafkaRefusal {
        if (resourceName == null || resourceName.isEmpty() || principal == null || principal.isEmpty()
            || host == null || host.isEmpty()) {
            throw new KafkaRefusal("an ACL names a resource, a principal and a host");
        }
        return AclBinding.newBuilder().setResourceType(resourceType(resourceType, false)).setResourceName(resourceName)
            .setPatternType(patternType(patternType, false)).setPrincipal(principal).setHost(host)
            .setOperation(operation(operation, false)).setPermission(permission(permission, false)).build();
    }

    /** Kafka's ACL filter (null strings match anything). */
    static AclFilter filter(byte resourceType, String resourceName, byte patternType, String principal, String host,
                            byte operation, byte permission) throws KafkaRefusal {
        return AclFilter.newBuilder().setResourceType(resourceType(resourceType, true))
            .setResourceName(resourceName == null ? "" : resourceName).setPatternType(patternType(patternType, true))
            .setPrincipal(principal == null ? "" : principal).setHost(host == null ? "" : host)
            .setOperation(operation(operation, true)).setPermission(permission(permission, true)).build();
    }
}
