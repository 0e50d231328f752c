package io.raftline.client.errors;

/** The consumer has no valid position for a partition and cannot pick one itself. */
public class InvalidOffsetException extends ApiException {

    /** Creates the exception with a message. */
    public InvalidOffsetException(String message) {
        super(message);
    }
}
