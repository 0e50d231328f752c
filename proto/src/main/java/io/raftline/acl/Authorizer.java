package io.raftline.acl;

import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.PatternType;
import io.raftline.protocol.acl.Permission;
import io.raftline.protocol.acl.ResourceType;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The authorization decision, with Kafka's semantics, as a pure function of the image's ACLs and the request:
 * a super user may do anything; otherwise a DENY binding that matches (principal or {@code User:*}, host or
 * {@code *}, the operation or ALL) wins over any ALLOW; an ALLOW binding matches its operation, ALL, or one that
 * implies it (READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS); a resource no
 * binding covers at all is allowed only with {@code allow.everyone.if.no.acl.found}.
 */
public record Authorizer(Set<String> superUsers, boolean allowEveryoneIfNoAcl) {

    public static final String WILDCARD = "*";
    public static final String ANY_PRINCIPAL = "User:*";
    /** The name of the one cluster resource, as in Kafka. */
    public static final String CLUSTER_NAME = "kafka-cluster";

    public Authorizer {
        superUsers = Set.copyOf(superUsers);
    }

    public enum Decision { ALLOWED, DENIED }

    public Decision authorize(AclIndex acls, String principal, String host, Operation operation, ResourceType type,
                              String name) {
        if (superUsers.contains(principal)) {
            return Decision.ALLOWED;
        }
        List<AclBinding> covering = acls.covering(type, name);
        if (covering.isEmpty()) {
            return allowEveryoneIfNoAcl ? Decision.ALLOWED : Decision.DENIED;
        }
        boolean allowed = false;
        for (AclBinding b : covering) {
            if (!appliesTo(b, principal, host)) {
                continue;
            }
            if (b.getPermission() == Permission.DENY) {
                if (b.getOperation() == operation || b.getOperation() == Operation.ALL) {
                    return Decision.DENIED;
                }
            } else if (b.getPermission() == Permission.ALLOW && grants(b.getOperation(), operation)) {
                allowed = true;
            }
        }
        return allowed ? Decision.ALLOWED : Decision.DENIED;
    }

    private static boolean appliesTo(AclBinding b, String principal, String host) {
        return (b.getPrincipal().equals(principal) || b.getPrincipal().equals(ANY_PRINCIPAL))
            && (b.getHost().equals(host) || b.getHost().equals(WILDCARD));
    }

    /** Whether an ALLOW of {@code bound} allows {@code wanted}. */
    static boolean grants(Operation bound, Operation wanted) {
        if (bound == wanted || bound == Operation.ALL) {
            return true;
        }
        return switch (wanted) {
            case DESCRIBE -> EnumSet.of(Operation.READ, Operation.WRITE, Operation.DELETE, Operation.ALTER).contains(bound);
            case DESCRIBE_CONFIGS -> bound == Operation.ALTER_CONFIGS;
            default -> false;
        };
    }

    /**
     * Why a binding cannot be stored, or empty when it can: a principal {@code User:<name>} (or {@code User:*}),
     * a host, a resource type, a name ({@code kafka-cluster} for the cluster; a prefix is not "*"), a pattern, an
     * operation that applies to the resource type, and a permission.
     */
    public static Optional<String> invalid(AclBinding b) {
        if (!b.getPrincipal().startsWith("User:") || b.getPrincipal().length() == "User:".length()) {
            return Optional.of("principal '" + b.getPrincipal() + "' is not User:<name> or User:*");
        }
        if (b.getHost().isEmpty()) {
            return Optional.of("host is empty (give an IP address or *)");
        }
        if (b.getResourceType() == ResourceType.RESOURCE_TYPE_UNSPECIFIED || b.getResourceType() == ResourceType.UNRECOGNIZED) {
            return Optional.of("no resource type");
        }
        if (b.getResourceName().isEmpty()) {
            return Optional.of("resource name is empty");
        }
        if (b.getResourceType() == ResourceType.CLUSTER && !b.getResourceName().equals(CLUSTER_NAME)) {
            return Optional.of("the cluster resource is named '" + CLUSTER_NAME + "', not '" + b.getResourceName() + "'");
        }
        if (b.getPatternType() != PatternType.LITERAL && b.getPatternType() != PatternType.PREFIXED) {
            return Optional.of("pattern type must be literal or prefixed");
        }
        if (b.getPatternType() == PatternType.PREFIXED && b.getResourceName().equals(WILDCARD)) {
            return Optional.of("a prefixed pattern cannot be '*' (use a literal '*')");
        }
        if (b.getOperation() == Operation.OPERATION_UNSPECIFIED || b.getOperation() == Operation.UNRECOGNIZED) {
            return Optional.of("no operation");
        }
        if (!operationsOf(b.getResourceType()).contains(b.getOperation())) {
            return Optional.of("operation " + b.getOperation() + " does not apply to a " + name(b.getResourceType()));
        }
        if (b.getPermission() != Permission.ALLOW && b.getPermission() != Permission.DENY) {
            return Optional.of("permission must be allow or deny");
        }
        return Optional.empty();
    }

    /** The operations that apply to a resource type, as Kafka's kafka-acls.sh accepts them. */
    public static Set<Operation> operationsOf(ResourceType type) {
        return switch (type) {
            case TOPIC -> EnumSet.of(Operation.ALL, Operation.READ, Operation.WRITE, Operation.CREATE, Operation.DELETE,
                Operation.ALTER, Operation.DESCRIBE, Operation.DESCRIBE_CONFIGS, Operation.ALTER_CONFIGS);
            case GROUP -> EnumSet.of(Operation.ALL, Operation.READ, Operation.DELETE, Operation.DESCRIBE);
            case CLUSTER -> EnumSet.of(Operation.ALL, Operation.CREATE, Operation.CLUSTER_ACTION, Operation.DESCRIBE_CONFIGS,
                Operation.ALTER_CONFIGS, Operation.IDEMPOTENT_WRITE, Operation.ALTER, Operation.DESCRIBE);
            case TRANSACTIONAL_ID -> EnumSet.of(Operation.ALL, Operation.DESCRIBE, Operation.WRITE);
            default -> EnumSet.noneOf(Operation.class);
        };
    }

    /** "topic", "group", "cluster", "transactional-id": as users write them. */
    public static String name(ResourceType type) {
        return type.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** "read", "describe-configs", ...: as users write them. */
    public static String name(Operation op) {
        return op.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
