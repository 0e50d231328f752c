package io.raftline.common;

/** The real clock: the only place that reads the system time. */
public final class SystemTime implements Time {

    public static final SystemTime INSTANCE = new SystemTime();

    private SystemTime() {
    }

    @Override
    public long milliseconds() {
        return System.currentTimeMillis();
    }

    @Override
    public long nanoseconds() {
        return System.nanoTime();
    }

    @Override
    public void sleep(long ms) throws InterruptedException {
        Thread.sleep(ms);
    }
}
