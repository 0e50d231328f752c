package io.raftline.client.errors;

/**
 * An unexpected error on the server, or an error code this client does not know; the message says more.
 * <p>Wire code: {@code UNKNOWN}.
 */
public class UnknownServerException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public UnknownServerException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public UnknownServerException(String message, Throwable cause) {
        super(message, cause);
    }
}
