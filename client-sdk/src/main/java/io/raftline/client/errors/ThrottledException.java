package io.raftline.client.errors;

/**
 * The broker is pushing back (its queues are full); the client backs off and retries.
 * <p>Wire code: {@code THROTTLED}.
 */
public class ThrottledException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public ThrottledException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public ThrottledException(String message, Throwable cause) {
        super(message, cause);
    }
}
