package io.raftline.client.errors;

/**
 * The group still has members, so it cannot be deleted.
 * <p>Wire code: {@code NON_EMPTY_GROUP}.
 */
public class NonEmptyGroupException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public NonEmptyGroupException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public NonEmptyGroupException(String message, Throwable cause) {
        super(message, cause);
    }
}
