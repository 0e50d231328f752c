package io.raftline.client.errors;

/**
 * The group member's generation is not the group's current one.
 * <p>Wire code: {@code ILLEGAL_GENERATION}.
 */
public class IllegalGenerationException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public IllegalGenerationException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public IllegalGenerationException(String message, Throwable cause) {
        super(message, cause);
    }
}
