package io.raftline.client.errors;

/** An error that a broker or controller reported with an {@code ErrorCode}; the message is the server's own words. */
public class ApiException extends RaftlineException {

    /** Creates the exception with the server's message. */
    public ApiException(String message) {
        super(message);
    }

    /** Creates the exception with a message and its cause. */
    public ApiException(String message, Throwable cause) {
        super(message, cause);
    }
}
