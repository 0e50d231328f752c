package io.raftline.client.errors;

/**
 * The coordinator does not know this group member.
 * <p>Wire code: {@code UNKNOWN_MEMBER_ID}.
 */
public class UnknownMemberIdException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public UnknownMemberIdException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public UnknownMemberIdException(String message, Throwable cause) {
        super(message, cause);
    }
}
