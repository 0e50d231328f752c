package io.raftline.client.errors;

/**
 * The principal may not do this to the consumer group (ACLs).
 * <p>Wire code: {@code GROUP_AUTHORIZATION_FAILED}.
 */
public class GroupAuthorizationException extends AuthorizationException {

    /** Creates the exception with the broker's message. */
    public GroupAuthorizationException(String message) {
        super(message);
    }
}
