package io.raftline.client.errors;

/**
 * The batch uses a magic value or compression codec the broker does not know.
 * <p>Wire code: {@code UNSUPPORTED_FORMAT}.
 */
public class UnsupportedFormatException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public UnsupportedFormatException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public UnsupportedFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
