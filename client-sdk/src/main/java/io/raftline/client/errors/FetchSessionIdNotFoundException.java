package io.raftline.client.errors;

/**
 * The broker no longer holds the incremental fetch session a fetch named (evicted, or the broker restarted): fetch
 * in full again. Retriable.
 */
public class FetchSessionIdNotFoundException extends RetriableException {

    /** Creates the exception with the broker's message. */
    public FetchSessionIdNotFoundException(String message) {
        super(message);
    }
}
