package io.raftline.client.errors;

/**
 * There is no reassignment in progress to cancel.
 * <p>Wire code: {@code NO_REASSIGNMENT_IN_PROGRESS}.
 */
public class NoReassignmentInProgressException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public NoReassignmentInProgressException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public NoReassignmentInProgressException(String message, Throwable cause) {
        super(message, cause);
    }
}
