package io.raftline.client.errors;

/**
 * The node belongs to another cluster.
 * <p>Wire code: {@code INCONSISTENT_CLUSTER_ID}.
 */
public class InconsistentClusterIdException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InconsistentClusterIdException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InconsistentClusterIdException(String message, Throwable cause) {
        super(message, cause);
    }
}
