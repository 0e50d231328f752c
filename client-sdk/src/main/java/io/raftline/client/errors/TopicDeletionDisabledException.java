package io.raftline.client.errors;

/**
 * Topic deletion is disabled on the cluster.
 * <p>Wire code: {@code TOPIC_DELETION_DISABLED}.
 */
public class TopicDeletionDisabledException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public TopicDeletionDisabledException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public TopicDeletionDisabledException(String message, Throwable cause) {
        super(message, cause);
    }
}
