package io.raftline.client.errors;

/**
 * The group coordinator is not available yet.
 * <p>Wire code: {@code COORDINATOR_NOT_AVAILABLE}.
 */
public class CoordinatorNotAvailableException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public CoordinatorNotAvailableException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public CoordinatorNotAvailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
