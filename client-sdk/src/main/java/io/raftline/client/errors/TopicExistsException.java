package io.raftline.client.errors;

/**
 * A topic of that name already exists.
 * <p>Wire code: {@code TOPIC_ALREADY_EXISTS}.
 */
public class TopicExistsException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public TopicExistsException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public TopicExistsException(String message, Throwable cause) {
        super(message, cause);
    }
}
