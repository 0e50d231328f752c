package io.raftline.client.errors;

/** A serializer or deserializer failed on a record's key or value. */
public class SerializationException extends RaftlineException {

    /** Creates the exception with a message. */
    public SerializationException(String message) {
        super(message);
    }

    /** Creates the exception with a message and its cause. */
    public SerializationException(String message, Throwable cause) {
        super(message, cause);
    }
}
