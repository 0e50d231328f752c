package io.raftline.client.errors;

/**
 * The leader epoch in the request is newer than the replica's; the broker has not caught up yet.
 * <p>Wire code: {@code UNKNOWN_LEADER_EPOCH}.
 */
public class UnknownLeaderEpochException extends InvalidMetadataException {

    /** Creates the exception with the broker's (or the client's) message. */
    public UnknownLeaderEpochException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public UnknownLeaderEpochException(String message, Throwable cause) {
        super(message, cause);
    }
}
