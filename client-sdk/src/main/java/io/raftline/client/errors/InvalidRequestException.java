package io.raftline.client.errors;

/**
 * The broker found the request malformed (missing fields, negative sizes); a client bug.
 * <p>Wire code: {@code INVALID_REQUEST}.
 */
public class InvalidRequestException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InvalidRequestException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InvalidRequestException(String message, Throwable cause) {
        super(message, cause);
    }
}
