package io.raftline.client.errors;

/** The request named something that does not exist, such as a user without a SCRAM credential. Not retriable. */
public class ResourceNotFoundException extends ApiException {

    /** Creates the exception with the broker's message. */
    public ResourceNotFoundException(String message) {
        super(message);
    }
}
