package io.raftline.client.errors;

/**
 * An error that may go away if the same request is sent again (after a metadata refresh or a backoff). The SDK
 * retries these itself until the operation's timeout; an application sees one only when that time ran out.
 */
public class RetriableException extends ApiException {

    /** Creates the exception with a message. */
    public RetriableException(String message) {
        super(message);
    }

    /** Creates the exception with a message and its cause. */
    public RetriableException(String message, Throwable cause) {
        super(message, cause);
    }
}
