package io.raftline.client.errors;

/**
 * The group session timeout is outside the broker's allowed range.
 * <p>Wire code: {@code INVALID_SESSION_TIMEOUT}.
 */
public class InvalidSessionTimeoutException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InvalidSessionTimeoutException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InvalidSessionTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
