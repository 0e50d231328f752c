package io.raftline.client.errors;

/**
 * The batch was already written by this idempotent producer.
 * <p>Wire code: {@code DUPLICATE_SEQUENCE}.
 */
public class DuplicateSequenceException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public DuplicateSequenceException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public DuplicateSequenceException(String message, Throwable cause) {
        super(message, cause);
    }
}
