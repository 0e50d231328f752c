package io.raftline.client.errors;

/**
 * The broker is not the leader of the partition; the client refreshes metadata and retries.
 * <p>Wire code: {@code NOT_LEADER}.
 */
public class NotLeaderException extends InvalidMetadataException {

    /** Creates the exception with the broker's (or the client's) message. */
    public NotLeaderException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public NotLeaderException(String message, Throwable cause) {
        super(message, cause);
    }
}
