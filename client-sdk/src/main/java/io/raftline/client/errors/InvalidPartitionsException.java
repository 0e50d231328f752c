package io.raftline.client.errors;

/**
 * The partition count asked for is not valid (not positive, or not larger than the current one).
 * <p>Wire code: {@code INVALID_PARTITIONS}.
 */
public class InvalidPartitionsException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InvalidPartitionsException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InvalidPartitionsException(String message, Throwable cause) {
        super(message, cause);
    }
}
