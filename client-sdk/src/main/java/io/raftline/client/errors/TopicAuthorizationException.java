package io.raftline.client.errors;

/**
 * The principal may not do this to the topic (ACLs).
 * <p>Wire code: {@code TOPIC_AUTHORIZATION_FAILED}.
 */
public class TopicAuthorizationException extends AuthorizationException {

    /** Creates the exception with the broker's message. */
    public TopicAuthorizationException(String message) {
        super(message);
    }
}
