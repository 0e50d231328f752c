package io.raftline.client.errors;

/**
 * The in-sync replica set is smaller than {@code min.insync.replicas}; nothing was written.
 * <p>Wire code: {@code NOT_ENOUGH_REPLICAS}.
 */
public class NotEnoughReplicasException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public NotEnoughReplicasException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public NotEnoughReplicasException(String message, Throwable cause) {
        super(message, cause);
    }
}
