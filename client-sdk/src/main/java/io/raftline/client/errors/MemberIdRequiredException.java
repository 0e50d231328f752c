package io.raftline.client.errors;

/**
 * The group coordinator asks the member to rejoin with the member id it assigned.
 * <p>Wire code: {@code MEMBER_ID_REQUIRED}.
 */
public class MemberIdRequiredException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public MemberIdRequiredException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public MemberIdRequiredException(String message, Throwable cause) {
        super(message, cause);
    }
}
