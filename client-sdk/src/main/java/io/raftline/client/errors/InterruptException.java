package io.raftline.client.errors;

/**
 * A blocking SDK call was interrupted. The thread's interrupt flag is set again before this is thrown, so code
 * further up still sees the interruption.
 */
public class InterruptException extends RaftlineException {

    /** Wraps the interruption and restores the thread's interrupt flag. */
    public InterruptException(InterruptedException cause) {
        super("Interrupted", cause);
        Thread.currentThread().interrupt();
    }

    /** Wraps the interruption with a message and restores the thread's interrupt flag. */
    public InterruptException(String message, InterruptedException cause) {
        super(message, cause);
        Thread.currentThread().interrupt();
    }
}
