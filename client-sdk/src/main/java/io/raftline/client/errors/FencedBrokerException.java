package io.raftline.client.errors;

/**
 * The broker has been fenced by the controller.
 * <p>Wire code: {@code FENCED_BROKER}.
 */
public class FencedBrokerException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public FencedBrokerException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public FencedBrokerException(String message, Throwable cause) {
        super(message, cause);
    }
}
