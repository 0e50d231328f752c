package io.raftline.client.errors;

/** A retriable error that means the client's view of leaders or epochs is stale: metadata is refreshed before retrying. */
public class InvalidMetadataException extends RetriableException {

    /** Creates the exception with a message. */
    public InvalidMetadataException(String message) {
        super(message);
    }

    /** Creates the exception with a message and its cause. */
    public InvalidMetadataException(String message, Throwable cause) {
        super(message, cause);
    }
}
