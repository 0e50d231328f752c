package io.raftline.client.errors;

/**
 * A request or record version is newer than the node understands.
 * <p>Wire code: {@code UNSUPPORTED_VERSION}.
 */
public class UnsupportedVersionException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public UnsupportedVersionException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public UnsupportedVersionException(String message, Throwable cause) {
        super(message, cause);
    }
}
