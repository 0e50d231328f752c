package io.raftline.client.errors;

/**
 * The broker asked is not the coordinator of the group.
 * <p>Wire code: {@code NOT_COORDINATOR}.
 */
public class NotCoordinatorException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public NotCoordinatorException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public NotCoordinatorException(String message, Throwable cause) {
        super(message, cause);
    }
}
