package io.raftline.client.internals.retry;

/**
 * How long to wait before the next try, as kafka-clients waits: {@code retry.backoff.ms} doubled after each failure up
 * to {@code retry.backoff.max.ms}, spread by ±{@code jitter} (20% in the clients) so that many clients failing at
 * once do not retry in step. A pure function: the caller passes the random draw.
 */
public record ExponentialBackoff(long initialMs, long maxMs, double jitter) {

    /** The clients' spread. */
    public static final double CLIENT_JITTER = 0.2;

    public ExponentialBackoff {
        if (initialMs < 0 || maxMs < 0 || jitter < 0 || jitter >= 1) {
            throw new IllegalArgumentException("backoff " + initialMs + ".." + maxMs + " ms with jitter " + jitter);
        }
    }

    /** With the clients' 20% jitter; a max below the initial backoff is read as the initial backoff. */
    public static ExponentialBackoff ofClient(long initialMs, long maxMs) {
        return new ExponentialBackoff(initialMs, Math.max(initialMs, maxMs), CLIENT_JITTER);
    }

    /**
     * The wait after {@code failures} consecutive failures (0 before any: no wait), given a uniform draw in [0, 1).
     * Never above {@code maxMs}.
     */
    public long backoffMs(int failures, double random) {
        if (failures <= 0 || initialMs == 0) {
            return 0;
        }
        double term = Math.min((double) maxMs, initialMs * Math.pow(2, Math.min(failures - 1, 62)));
        double spread = 1 + jitter * (2 * random - 1);
        return Math.min(maxMs, Math.round(term * spread));
    }
}
