package io.raftline.broker.console;

import io.raftline.acl.Authorizer;
import io.raftline.grpc.TransportSecurity;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.ResourceType;
import java.util.List;

/**
 * Whether an admin action from the console may run, decided from what its request showed. Pure: the ACL answer comes
 * in as a function. The checks, in order, each refusing with one JSON error and nothing changed:
 *
 * <ol>
 *   <li>admin off on this node ({@code console.admin.enabled=false}): 403;</li>
 *   <li>no CSRF token, or a wrong one: 403;</li>
 *   <li>authentication required (the node's authorizer is on, or its HTTPS listener can see client certificates)
 *       and the request showed none (its principal is {@code User:ANONYMOUS}): 401;</li>
 *   <li>with the authorizer on, each of the action's {@link Need}s must be met for that principal, by the same ACL
 *       rules the broker applies to the CLI's call: 403 naming the first that is not.</li>
 * </ol>
 */
final class ConsoleAccess {

    private ConsoleAccess() {
    }

    /** One ACL an action needs: any of {@code anyOf} (operation on a resource) allowed. */
    record Need(List<Check> anyOf) {
        static Need of(Operation operation, ResourceType type, String name) {
            return new Need(List.of(new Check(operation, type, name)));
        }

        String describe() {
            return String.join(" or ", anyOf.stream().map(Check::describe).toList());
        }
    }

    /** An operation on a resource. */
    record Check(Operation operation, ResourceType type, String name) {
        String describe() {
            String what = type == ResourceType.CLUSTER ? "the cluster" : Authorizer.name(type) + " '" + name + "'";
            return operation.name() + " " + what;
        }
    }

    /** The ACLs a console action needs: the ones the broker checks for the same call from the CLI. */
    static List<Need> needs(ConsoleRoute.Kind action, String topic, String group) {
        return switch (action) {
            // CreateTopics: CREATE on the cluster, or on the topic
            case CREATE_TOPIC -> List.of(new Need(List.of(new Check(Operation.CREATE, ResourceType.CLUSTER, Authorizer.CLUSTER_NAME),
                new Check(Operation.CREATE, ResourceType.TOPIC, topic))));
            // ElectLeaders: ALTER on the cluster
            case ELECT_LEADER -> List.of(Need.of(Operation.ALTER, ResourceType.CLUSTER, Authorizer.CLUSTER_NAME));
            // OffsetCommit: READ on the group and on the topic
            case RESET_OFFSETS -> List.of(Need.of(Operation.READ, ResourceType.GROUP, group),
                Need.of(Operation.READ, ResourceType.TOPIC, topic));
            default -> throw new IllegalArgumentException("not an admin action: " + action);
        };
    }

    /** The answer to the ACL question for the request's principal. */
    @FunctionalInterface
    interface Acls {
        boolean allowed(Check check);
    }

    /** Allowed ({@code status} 200, no error), or the status and error to answer. */
    record Decision(int status, String error) {
        static final Decision ALLOWED = new Decision(200, null);

        boolean allowed() {
            return status == 200;
        }
    }

    /**
     * @param csrfError null when the request carried this node's CSRF token, else why not
     * @param authenticationRequired the authorizer is on, or the listener is HTTPS and asks for client certificates
     * @param authorizerOn ACLs apply ({@code authorizer.enabled})
     * @param principal the principal the request showed, {@code User:ANONYMOUS} for none
     */
    static Decision decide(boolean adminEnabled, String csrfError, boolean authenticationRequired, boolean authorizerOn,
                           String principal, List<Need> needs, Acls acls) {
        if (!adminEnabled) {
            return new Decision(403, "admin actions are disabled on this node (console.admin.enabled=false)");
        }
        if (csrfError != null) {
            return new Decision(403, csrfError);
        }
        boolean anonymous = principal == null || principal.equals(TransportSecurity.ANONYMOUS);
        if ((authenticationRequired || authorizerOn) && anonymous) {
            return new Decision(401, "authentication required: show a client certificate or log in, over HTTPS");
        }
        if (!authorizerOn) {
            return Decision.ALLOWED;
        }
        for (Need need : needs) {
            if (need.anyOf().stream().noneMatch(acls::allowed)) {
                return new Decision(403, principal + " is not authorized to " + need.describe());
            }
        }
        return Decision.ALLOWED;
    }
}
