package io.raftline.client.errors;

/**
 * The principal may not do this to the cluster (ACLs).
 * <p>Wire code: {@code CLUSTER_AUTHORIZATION_FAILED}.
 */
public class ClusterAuthorizationException extends AuthorizationException {

    /** Creates the exception with the broker's message. */
    public ClusterAuthorizationException(String message) {
        super(message);
    }
}
