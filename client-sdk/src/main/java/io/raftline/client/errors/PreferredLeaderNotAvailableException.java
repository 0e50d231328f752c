package io.raftline.client.errors;

/**
 * The preferred leader is not in the in-sync replica set or not alive.
 * <p>Wire code: {@code PREFERRED_LEADER_NOT_AVAILABLE}.
 */
public class PreferredLeaderNotAvailableException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public PreferredLeaderNotAvailableException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public PreferredLeaderNotAvailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
