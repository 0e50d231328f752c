package io.raftline.client.errors;

/**
 * The group is rebalancing.
 * <p>Wire code: {@code REBALANCE_IN_PROGRESS}.
 */
public class RebalanceInProgressException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public RebalanceInProgressException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public RebalanceInProgressException(String message, Throwable cause) {
        super(message, cause);
    }
}
