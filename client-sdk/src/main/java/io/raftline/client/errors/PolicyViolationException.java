package io.raftline.client.errors;

/**
 * The request breaks a cluster policy.
 * <p>Wire code: {@code POLICY_VIOLATION}.
 */
public class PolicyViolationException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public PolicyViolationException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public PolicyViolationException(String message, Throwable cause) {
        super(message, cause);
    }
}
