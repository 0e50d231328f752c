package io.raftline.client.errors;

/**
 * The coordinator is still loading the group's state.
 * <p>Wire code: {@code COORDINATOR_LOAD_IN_PROGRESS}.
 */
public class CoordinatorLoadInProgressException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public CoordinatorLoadInProgressException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public CoordinatorLoadInProgressException(String message, Throwable cause) {
        super(message, cause);
    }
}
