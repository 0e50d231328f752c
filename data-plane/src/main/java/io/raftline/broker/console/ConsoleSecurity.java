package io.raftline.broker.console;

import io.raftline.grpc.TransportSecurity;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.ResourceType;
import io.raftline.common.sasl.ScramCredential;
import java.util.Optional;
import java.util.function.Function;
import javax.net.ssl.SSLSession;

/**
 * What the console takes from the node's security to authenticate and authorize its admin actions.
 *
 * @param authenticationRequired the metrics listener is HTTPS and asks for client certificates (a principal can be shown)
 * @param authorizerOn the node's {@code authorizer.enabled}: the principal needs the ACLs the CLI's call would need
 * @param principalOf the principal of a client's TLS session, by the node's {@code ssl.principal.mapping.rules}
 * @param acls the node's ACL decision (the broker's RequestAuthorizer on the node's metadata image)
 * @param scramCredential a SCRAM user's SCRAM-SHA-512 credential in the node's metadata image, for the login form
 */
public record ConsoleSecurity(boolean authenticationRequired, boolean authorizerOn, Function<SSLSession, String> principalOf,
                              AclDecision acls, Function<String, Optional<ScramCredential>> scramCredential) {

    /** No TLS and no authorizer: whoever reaches the listener acts (as before there was security). */
    public static final ConsoleSecurity NONE = new ConsoleSecurity(false, false, s -> TransportSecurity.ANONYMOUS,
        (principal, host, operation, type, name) -> true, user -> Optional.empty());

    /** Whether {@code principal} at {@code host} may do {@code operation} on the resource. */
    @FunctionalInterface
    public interface AclDecision {
        boolean allowed(String principal, String host, Operation operation, ResourceType type, String name);
    }
}
