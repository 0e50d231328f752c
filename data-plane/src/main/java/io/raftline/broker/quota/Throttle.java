package io.raftline.broker.quota;

/**
 * A rate limit on some quantity (bytes, usually) over a window: a token bucket that fills at {@code rate} per second
 * up to {@code rate × window} and that every use drains, possibly below zero (a use is never split: the one that
 * crosses the limit goes through, and the ones after wait until the debt is paid back). Over any span {@code T} no
 * more than {@code rate × (window + T)} plus one use passes.
 *
 * <p>Pure decisions over a clock the caller reads: every method takes {@code nowNs} (from an injected
 * {@code Time}), so tests step time by hand. Thread-safe (one lock per throttle, held for a few arithmetic steps).
 *
 * <p>Used for replication throttles (KIP-73: {@code leader/follower.replication.throttled.rate}), and meant to serve
 * client quotas too (KIP-13 {@code producer_byte_rate}/{@code consumer_byte_rate}): {@link #record} the bytes of
 * each answered request, and answer with {@link #throttleTimeNs} as the throttle time the client waits out.
 */
public final class Throttle {

    /** A rate that never throttles. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    private final long windowNs;
    private long ratePerSec;
    /** Units that may pass now; negative: the debt of uses past the limit. */
    private double balance;
    private long lastNs;

    /** A throttle at {@code ratePerSec} ({@link #UNLIMITED} for none), its bucket full at {@code nowNs}. */
    public Throttle(long ratePerSec, long windowNs, long nowNs) {
        if (windowNs <= 0) {
            throw new IllegalArgumentException("window must be positive: " + windowNs);
        }
        this.windowNs = windowNs;
        this.lastNs = nowNs;
        setRate(ratePerSec, nowNs);
    }

    /**
     * Changes the rate from now on: a limit where there was none starts with a full bucket; a change of limit keeps
     * the balance (a debt is paid back at the new rate), capped at the new bucket size.
     */
    public synchronized void setRate(long ratePerSec, long nowNs) {
        if (ratePerSec <= 0) {
            throw new IllegalArgumentException("rate must be positive: " + ratePerSec);
        }
        refill(nowNs);
        boolean wasUnlimited = this.ratePerSec == UNLIMITED || this.ratePerSec == 0;
        this.ratePerSec = ratePerSec;
        if (wasUnlimited) {
            balance = capacity();
        }
        balance = Math.min(balance, capacity());
    }

    public synchronized long ratePerSec() {
        return ratePerSec;
    }

    public synchronized boolean unlimited() {
        return ratePerSec == UNLIMITED;
    }

    /** Counts {@code amount} units as used at {@code nowNs}. */
    public synchronized void record(long amount, long nowNs) {
        if (ratePerSec == UNLIMITED) {
            return;
        }
        refill(nowNs);
        balance -= amount;
    }

    /** Units that may pass now without waiting: 0 while in debt; {@link Long#MAX_VALUE} when unlimited. */
    public synchronized long allowance(long nowNs) {
        if (ratePerSec == UNLIMITED) {
            return Long.MAX_VALUE;
        }
        refill(nowNs);
        return balance <= 0 ? 0 : (long) Math.floor(balance);
    }

    /** How long from {@code nowNs} until a use may pass: 0 now, else the time to pay back the debt. */
    public synchronized long throttleTimeNs(long nowNs) {
        if (ratePerSec == UNLIMITED) {
            return 0;
        }
        refill(nowNs);
        return balance > 0 ? 0 : (long) Math.ceil((1 - balance) * 1e9 / ratePerSec);
    }

    /** Whether uses must wait now. */
    public boolean exceeded(long nowNs) {
        return throttleTimeNs(nowNs) > 0;
    }

    private double capacity() {
        return ratePerSec == UNLIMITED ? Double.MAX_VALUE : ratePerSec * (windowNs / 1e9);
    }

    private void refill(long nowNs) {
        long elapsed = nowNs - lastNs;
        if (elapsed > 0) {
            lastNs = nowNs;
            if (ratePerSec != UNLIMITED) {
                balance = Math.min(capacity(), balance + ratePerSec * (elapsed / 1e9));
            }
        }
    }
}
