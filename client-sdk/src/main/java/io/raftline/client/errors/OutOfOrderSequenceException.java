package io.raftline.client.errors;

/**
 * The broker saw a gap in an idempotent producer's sequence numbers.
 * <p>Wire code: {@code OUT_OF_ORDER_SEQUENCE}.
 */
public class OutOfOrderSequenceException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public OutOfOrderSequenceException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public OutOfOrderSequenceException(String message, Throwable cause) {
        super(message, cause);
    }
}
