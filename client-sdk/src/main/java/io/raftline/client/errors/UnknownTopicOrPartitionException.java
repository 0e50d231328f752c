package io.raftline.client.errors;

/**
 * The topic or partition is not known to the broker; retriable because metadata may lag a topic creation.
 * <p>Wire code: {@code UNKNOWN_TOPIC_OR_PARTITION}.
 */
public class UnknownTopicOrPartitionException extends RetriableException {

    /** Creates the exception with the broker's (or the client's) message. */
    public UnknownTopicOrPartitionException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public UnknownTopicOrPartitionException(String message, Throwable cause) {
        super(message, cause);
    }
}
