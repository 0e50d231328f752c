package io.raftline.client.errors;

/**
 * A request from an earlier incarnation of a broker.
 * <p>Wire code: {@code STALE_BROKER_EPOCH}.
 */
public class StaleBrokerEpochException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public StaleBrokerEpochException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public StaleBrokerEpochException(String message, Throwable cause) {
        super(message, cause);
    }
}
