package io.raftline.client.errors;

/**
 * A batch parses but breaks a rule (offsets, record count).
 * <p>Wire code: {@code INVALID_RECORD}.
 */
public class InvalidRecordException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InvalidRecordException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InvalidRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
