package io.raftline.client.errors;

/**
 * The topic name is not valid ({@code [a-zA-Z0-9._-]{1,249}}, not {@code .} or {@code ..}) or collides with another.
 * <p>Wire code: {@code INVALID_TOPIC}.
 */
public class InvalidTopicException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InvalidTopicException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InvalidTopicException(String message, Throwable cause) {
        super(message, cause);
    }
}
