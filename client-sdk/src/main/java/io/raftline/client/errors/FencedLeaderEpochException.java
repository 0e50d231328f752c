package io.raftline.client.errors;

/**
 * The leader epoch in the request is older than the replica's; the client's metadata is stale.
 * <p>Wire code: {@code FENCED_LEADER_EPOCH}.
 */
public class FencedLeaderEpochException extends InvalidMetadataException {

    /** Creates the exception with the broker's (or the client's) message. */
    public FencedLeaderEpochException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public FencedLeaderEpochException(String message, Throwable cause) {
        super(message, cause);
    }
}
