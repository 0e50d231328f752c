package io.raftline.client.errors;

/**
 * No replica is eligible to become leader.
 * <p>Wire code: {@code ELIGIBLE_LEADERS_NOT_AVAILABLE}.
 */
public class EligibleLeadersNotAvailableException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public EligibleLeadersNotAvailableException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public EligibleLeadersNotAvailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
