package io.raftline.client.errors;

/**
 * A topic or broker config name or value was refused by the cluster.
 * <p>Wire code: {@code INVALID_CONFIG}.
 */
public class InvalidConfigurationException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InvalidConfigurationException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InvalidConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
