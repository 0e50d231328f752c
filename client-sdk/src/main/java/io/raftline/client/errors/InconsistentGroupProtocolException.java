package io.raftline.client.errors;

/**
 * The member's protocol does not match the group's.
 * <p>Wire code: {@code INCONSISTENT_GROUP_PROTOCOL}.
 */
public class InconsistentGroupProtocolException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InconsistentGroupProtocolException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InconsistentGroupProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
