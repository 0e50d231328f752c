package io.raftline.client.errors;

/**
 * An explicit replica assignment is not valid.
 * <p>Wire code: {@code INVALID_REPLICA_ASSIGNMENT}.
 */
public class InvalidReplicaAssignmentException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InvalidReplicaAssignmentException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InvalidReplicaAssignmentException(String message, Throwable cause) {
        super(message, cause);
    }
}
