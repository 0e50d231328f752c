package io.raftline.client.errors;

/** Thrown from a blocking consumer call after another thread called {@code wakeup()}. */
public class WakeupException extends RaftlineException {

    /** Creates the exception. */
    public WakeupException() {
        super("The consumer was woken up");
    }
}
