package io.raftline.common;

/**
 * The clock, passed in wherever time matters so that tests can step it by hand. Production code uses
 * {@link SystemTime#INSTANCE}; nothing else reads the system clock.
 */
public interface Time {

    /** Wall-clock milliseconds since the epoch (record timestamps, retention). */
    long milliseconds();

    /** A monotonic clock in nanoseconds, for timeouts and durations. */
    long nanoseconds();

    /** Sleeps; a manual clock advances instead. */
    void sleep(long ms) throws InterruptedException;

    /** Monotonic milliseconds, derived from {@link #nanoseconds()}. */
    default long hiResMilliseconds() {
        return nanoseconds() / 1_000_000L;
    }
}
