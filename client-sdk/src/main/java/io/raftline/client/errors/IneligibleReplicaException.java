package io.raftline.client.errors;

/**
 * The replica is not eligible to join the in-sync replica set.
 * <p>Wire code: {@code INELIGIBLE_REPLICA}.
 */
public class IneligibleReplicaException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public IneligibleReplicaException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public IneligibleReplicaException(String message, Throwable cause) {
        super(message, cause);
    }
}
