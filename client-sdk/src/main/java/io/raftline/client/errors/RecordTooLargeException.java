package io.raftline.client.errors;

/**
 * A record or batch is larger than the broker's {@code message.max.bytes} or the producer's {@code max.request.size}.
 * <p>Wire code: {@code MESSAGE_TOO_LARGE}.
 */
public class RecordTooLargeException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public RecordTooLargeException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public RecordTooLargeException(String message, Throwable cause) {
        super(message, cause);
    }
}
