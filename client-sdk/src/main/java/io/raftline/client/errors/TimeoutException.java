package io.raftline.client.errors;

/**
 * An operation did not complete in time: a broker's request timeout, or a client-side deadline such as
 * {@code max.block.ms}, {@code delivery.timeout.ms} or {@code default.api.timeout.ms}.
 * <p>Wire code: {@code REQUEST_TIMED_OUT}.
 */
public class TimeoutException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public TimeoutException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public TimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
