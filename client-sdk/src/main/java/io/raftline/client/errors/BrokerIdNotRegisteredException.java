package io.raftline.client.errors;

/**
 * The broker id is not registered with the controller.
 * <p>Wire code: {@code BROKER_ID_NOT_REGISTERED}.
 */
public class BrokerIdNotRegisteredException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public BrokerIdNotRegisteredException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public BrokerIdNotRegisteredException(String message, Throwable cause) {
        super(message, cause);
    }
}
