package io.raftline.client.errors;

/**
 * A record batch failed its CRC or length check; the data was refused (producer) or not returned (consumer).
 * <p>Wire code: {@code CORRUPT_MESSAGE}.
 */
public class CorruptRecordException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public CorruptRecordException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public CorruptRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
