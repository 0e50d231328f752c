package io.raftline.client.errors;

/**
 * The broker is not available (not registered, shutting down, or unreachable).
 * <p>Wire code: {@code BROKER_NOT_AVAILABLE}.
 */
public class BrokerNotAvailableException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public BrokerNotAvailableException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public BrokerNotAvailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
