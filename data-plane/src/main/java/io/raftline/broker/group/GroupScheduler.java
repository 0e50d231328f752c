package io.raftline.broker.group;

/**
 * Runs the coordinator's timers (session expiry, join and sync deadlines, offset expiry). Production runs them on
 * one thread ({@link ExecutorGroupScheduler}); tests run them when they step a manual clock.
 */
public interface GroupScheduler {

    /** A scheduled task; cancelling a task that already ran, or twice, does nothing. */
    interface Task {
        void cancel();
    }

    /**
     * Runs {@code task} once, {@code delayMs} from now (never on the caller's thread, never before it returns).
     */
    Task schedule(long delayMs, Runnable task);
}
