package io.raftline.client.errors;

/**
 * The broker has no state for this producer id (for example, it expired).
 * <p>Wire code: {@code UNKNOWN_PRODUCER_ID}.
 */
public class UnknownProducerIdException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public UnknownProducerIdException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public UnknownProducerIdException(String message, Throwable cause) {
        super(message, cause);
    }
}
