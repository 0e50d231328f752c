package io.raftline.broker.replica;

/**
 * What a leader knows of one follower: its log end offset from its last fetch and when it was last caught up
 * (Kafka's rule: a fetch at or past the leader's log end offset at the time of the follower's previous fetch
 * means the follower was caught up then). Guarded by the partition's lock.
 */
final class FollowerState {

    final int replicaId;
    long logEndOffset = -1;
    /** The follower's log start offset as its last fetch said (-1: not told yet). */
    long logStartOffset = -1;
    long lastCaughtUpTimeMs;
    long lastFetchTimeMs;
    long leaderEndOffsetAtLastFetch;

    FollowerState(int replicaId, long nowMs) {
        this.replicaId = replicaId;
        // A new follower gets a full lag window before it may be dropped from the ISR.
        this.lastCaughtUpTimeMs = nowMs;
    }

    void onFetch(long fetchOffset, long leaderEndOffset, long nowMs) {
        if (fetchOffset >= leaderEndOffset) {
            lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, nowMs);
        } else if (fetchOffset >= leaderEndOffsetAtLastFetch) {
            lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, lastFetchTimeMs);
        }
        logEndOffset = fetchOffset;
        leaderEndOffsetAtLastFetch = leaderEndOffset;
        lastFetchTimeMs = nowMs;
    }
}
