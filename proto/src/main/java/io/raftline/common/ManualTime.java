package io.raftline.common;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when told to: for deterministic tests of time-driven logic. */
public final class ManualTime implements Time {

    private final AtomicLong nowMs;
    private final AtomicLong nowNs;

    public ManualTime() {
        this(1_700_000_000_000L);
    }

    public ManualTime(long startMs) {
        this.nowMs = new AtomicLong(startMs);
        this.nowNs = new AtomicLong(0);
    }

    @Override
    public long milliseconds() {
        return nowMs.get();
    }

    @Override
    public long nanoseconds() {
        return nowNs.get();
    }

    /** Advances the clock instead of sleeping. */
    @Override
    public void sleep(long ms) {
        advance(ms);
    }

    public void advance(long ms) {
        nowMs.addAndGet(ms);
        nowNs.addAndGet(ms * 1_000_000L);
    }
}
