package io.raftline.client.errors;

/**
 * No group with that id exists.
 * <p>Wire code: {@code GROUP_ID_NOT_FOUND}.
 */
public class GroupIdNotFoundException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public GroupIdNotFoundException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public GroupIdNotFoundException(String message, Throwable cause) {
        super(message, cause);
    }
}
