package io.raftline.client.errors;

/**
 * The log directory holding the replica is offline on that broker; retriable because leadership moves elsewhere.
 * <p>Wire code: {@code STORAGE_ERROR}.
 */
public class StorageErrorException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public StorageErrorException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public StorageErrorException(String message, Throwable cause) {
        super(message, cause);
    }
}
