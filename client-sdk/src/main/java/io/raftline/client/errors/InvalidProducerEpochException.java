package io.raftline.client.errors;

/**
 * The producer's epoch is older than the one the broker knows: another instance has taken over this producer id.
 * <p>Wire code: {@code INVALID_PRODUCER_EPOCH}.
 */
public class InvalidProducerEpochException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InvalidProducerEpochException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InvalidProducerEpochException(String message, Throwable cause) {
        super(message, cause);
    }
}
