package io.raftline.client.errors;

/**
 * A record timestamp is outside the range the topic accepts.
 * <p>Wire code: {@code INVALID_TIMESTAMP}.
 */
public class InvalidTimestampException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InvalidTimestampException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InvalidTimestampException(String message, Throwable cause) {
        super(message, cause);
    }
}
