package io.raftline.client.errors;

/**
 * The batch was written on the leader but the in-sync replica set shrank before it could be acknowledged.
 * <p>Wire code: {@code NOT_ENOUGH_REPLICAS_AFTER_APPEND}.
 */
public class NotEnoughReplicasAfterAppendException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public NotEnoughReplicasAfterAppendException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public NotEnoughReplicasAfterAppendException(String message, Throwable cause) {
        super(message, cause);
    }
}
