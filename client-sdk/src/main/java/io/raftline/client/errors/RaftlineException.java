package io.raftline.client.errors;

/** The base of every exception the Raftline SDK throws; unchecked, as in kafka-clients. */
public class RaftlineException extends RuntimeException {

    /** Creates the exception with a message. */
    public RaftlineException(String message) {
        super(message);
    }

    /** Creates the exception with a message and its cause. */
    public RaftlineException(String message, Throwable cause) {
        super(message, cause);
    }
}
