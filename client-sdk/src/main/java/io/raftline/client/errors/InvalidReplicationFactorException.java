package io.raftline.client.errors;

/**
 * The replication factor is not valid, e.g. larger than the number of live brokers.
 * <p>Wire code: {@code INVALID_REPLICATION_FACTOR}.
 */
public class InvalidReplicationFactorException extends ApiException {

    /** Creates the exception with the broker's (or the client's) message. */
    public InvalidReplicationFactorException(String message) {
        super(message);
    }

    /** Creates the exception with a message and the cause that led to it. */
    public InvalidReplicationFactorException(String message, Throwable cause) {
        super(message, cause);
    }
}
