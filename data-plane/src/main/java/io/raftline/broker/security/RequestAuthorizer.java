package io.raftline.broker.security;

import io.raftline.grpc.TransportSecurity;
import io.raftline.acl.Authorizer;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.ResourceType;
import java.util.Collection;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The broker's authorization of client requests: the {@link Authorizer} decision on the ACLs of the broker's
 * current metadata image, for the principal and host of the call being served. Off (everything allowed) unless
 * {@code authorizer.enabled}; an ACL change applies as soon as this broker's image holds it.
 */
public final class RequestAuthorizer {

    public static final RequestAuthorizer OFF = new RequestAuthorizer(null, () -> MetadataImage.EMPTY);

    private final Authorizer decision;
    private final Supplier<MetadataImage> image;

    private RequestAuthorizer(Authorizer decision, Supplier<MetadataImage> image) {
        this.decision = decision;
        this.image = image;
    }

    /** {@code superUsers}: super.users and this node's own principal. */
    public static RequestAuthorizer on(Set<String> superUsers, boolean allowEveryoneIfNoAcl, Supplier<MetadataImage> image) {
        return new RequestAuthorizer(new Authorizer(superUsers, allowEveryoneIfNoAcl), image);
    }

    public boolean enabled() {
        return decision != null;
    }

    public boolean allowed(String principal, String host, Operation operation, ResourceType type, String name) {
        return decision == null
            || decision.authorize(image.get().aclIndex(), principal, host, operation, type, name) == Authorizer.Decision.ALLOWED;
    }

    /** Who is asking: captured where a request arrives, for checks that run later on another thread. */
    public record Caller(String principal, String host) {
        /** The caller of the gRPC call being served (or the one {@link TransportSecurity#callAs} names). */
        public static Caller current() {
            return new Caller(TransportSecurity.principal(), TransportSecurity.clientHost());
        }
    }

    public boolean allowed(Caller caller, Operation operation, ResourceType type, String name) {
        return decision == null || allowed(caller.principal(), caller.host(), operation, type, name);
    }

    /** Null when {@code caller} may do it; else the error to answer. */
    public Error check(Caller caller, Operation operation, ResourceType type, String name) {
        return allowed(caller, operation, type, name) ? null : denied(operation, type, name);
    }

    /** Whether the caller of the gRPC call being served may do {@code operation} on the resource. */
    public boolean allowed(Operation operation, ResourceType type, String name) {
        // off: no Context lookup on the produce path
        return decision == null || allowed(Caller.current(), operation, type, name);
    }

    /** Null when the gRPC caller may do it; else the error to answer. */
    public Error check(Operation operation, ResourceType type, String name) {
        return allowed(operation, type, name) ? null : denied(operation, type, name);
    }

    /** Null when the gRPC caller may do it to every named resource; else the error for the first it may not. */
    public Error checkAll(Operation operation, ResourceType type, Collection<String> names) {
        if (decision == null) {
            return null;
        }
        for (String name : names) {
            Error e = check(operation, type, name);
            if (e != null) {
                return e;
            }
        }
        return null;
    }

    /** Null when the gRPC caller may do it to the cluster; else the error. */
    public Error checkCluster(Operation operation) {
        return check(operation, ResourceType.CLUSTER, Authorizer.CLUSTER_NAME);
    }

    /**
     * Whether the gRPC caller may get a producer id: IDEMPOTENT_WRITE on the cluster, or WRITE on some topic (as
     * Kafka decides since KIP-679).
     */
    public boolean mayProduceIdempotently() {
        if (decision == null || allowed(Operation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, Authorizer.CLUSTER_NAME)) {
            return true;
        }
        // a super user was allowed above
        String principal = TransportSecurity.principal();
        String host = TransportSecurity.clientHost();
        for (String topic : image.get().topicIdsByName().keySet()) {
            if (allowed(principal, host, Operation.WRITE, ResourceType.TOPIC, topic)) {
                return true;
            }
        }
        return false;
    }

    public static Error denied(Operation operation, ResourceType type, String name) {
        String what = type == ResourceType.CLUSTER ? "the cluster" : Authorizer.name(type) + " '" + name + "'";
        return Error.newBuilder().setCode(codeOf(type))
            .setMessage("not authorized to " + operation.name() + " " + what).build();
    }

    public static ErrorCode codeOf(ResourceType type) {
        return switch (type) {
            case TOPIC -> ErrorCode.TOPIC_AUTHORIZATION_FAILED;
            case GROUP -> ErrorCode.GROUP_AUTHORIZATION_FAILED;
            default -> ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
        };
    }
}
