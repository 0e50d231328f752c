package io.raftline.client.errors;

/**
 * A partition change carried a stale partition epoch.
 * <p>Wire code: {@code INVALID_UPDATE_VERSION}.
 */
public class InvalidUpdateVersionException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InvalidUpdateVersionException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InvalidUpdateVersionException(String message, Throwable cause) {
        super(message, cause);
    }
}
