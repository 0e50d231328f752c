package io.raftline.client.errors;

/**
 * The fetch offset is outside the partition's log (before its start or after its end).
 * <p>Wire code: {@code OFFSET_OUT_OF_RANGE}.
 */
public class OffsetOutOfRangeException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public OffsetOutOfRangeException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public OffsetOutOfRangeException(String message, Throwable cause) {
        super(message, cause);
    }
}
