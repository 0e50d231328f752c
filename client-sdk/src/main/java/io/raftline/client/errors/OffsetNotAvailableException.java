package io.raftline.client.errors;

/**
 * A new leader cannot answer an offset lookup yet: its high watermark has not reached the start of its leader epoch,
 * so the end it knows may lag the one its predecessor reported. Retried by the client.
 * <p>Wire code: {@code OFFSET_NOT_AVAILABLE}.
 */
public class OffsetNotAvailableException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public OffsetNotAvailableException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public OffsetNotAvailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
