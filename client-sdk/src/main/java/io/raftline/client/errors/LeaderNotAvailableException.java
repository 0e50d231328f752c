package io.raftline.client.errors;

/**
 * The partition has no leader right now (an election is in progress or it is offline).
 * <p>Wire code: {@code LEADER_NOT_AVAILABLE}.
 */
public class LeaderNotAvailableException extends InvalidMetadataException {

    /** Creates the exception with the broker's (or the client's) message. */
    public LeaderNotAvailableException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public LeaderNotAvailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
