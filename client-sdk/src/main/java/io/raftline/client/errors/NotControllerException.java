package io.raftline.client.errors;

/**
 * The node asked is not the active controller; the request is retried against the current one.
 * <p>Wire code: {@code NOT_CONTROLLER}.
 */
public class NotControllerException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public NotControllerException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public NotControllerException(String message, Throwable cause) {
        super(message, cause);
    }
}
