package io.raftline.cli.command.perf;

import io.raftline.common.SystemTime;

/** Paces sends to a target rate (records per second); -1 is as fast as possible. */
final class Throttler {

    private final long targetPerSec;
    private final long startNs;

    Throttler(long targetPerSec, long startNs) {
        this.targetPerSec = targetPerSec;
        this.startNs = startNs;
    }

    /** Sleeps until sending record number {@code sent} keeps to the target rate. */
    void pace(long sent) throws InterruptedException {
        if (targetPerSec <= 0) {
            return;
        }
        long dueNs = startNs + sent * 1_000_000_000L / targetPerSec;
        long waitNs = dueNs - SystemTime.INSTANCE.nanoseconds();
        if (waitNs > 2_000_000L) {
            Thread.sleep(waitNs / 1_000_000L, (int) (waitNs % 1_000_000L));
        }
    }
}
