package io.raftline.client.errors;

/** A fetch named its incremental fetch session with an epoch other than the broker's: fetch in full again. Retriable. */
public class InvalidFetchSessionEpochException extends RetriableException {

    /** Creates the exception with the broker's message. */
    public InvalidFetchSessionEpochException(String message) {
        super(message);
    }
}
