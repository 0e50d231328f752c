package io.raftline.client.errors;

/** A group's committed offsets of a topic its members subscribe to cannot be deleted while they do. Not retriable. */
public class GroupSubscribedToTopicException extends ApiException {

    /** Creates the exception with the broker's message. */
    public GroupSubscribedToTopicException(String message) {
        super(message);
    }
}
