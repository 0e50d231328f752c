package io.raftline.client.errors;

/**
 * The partition already has the preferred leader; no election was needed.
 * <p>Wire code: {@code ELECTION_NOT_NEEDED}.
 */
public class ElectionNotNeededException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public ElectionNotNeededException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public ElectionNotNeededException(String message, Throwable cause) {
        super(message, cause);
    }
}
