package io.raftline.broker.replica;

/**
 * What a leader knows of one follower: its log end offset from its last counted fetch (-1 before the first), the
 * broker epoch that fetch carried (the follower's incarnation, -1 before the first), and when it was last caught up
 * (Kafka's rule: a fetch at or past the leader's log end offset at the time of the follower's previous fetch means
 * the follower was caught up then). Immutable; {@link PartitionState} holds one per follower.
 */
record FollowerState(int replicaId, long logEndOffset, long brokerEpoch, long lastCaughtUpTimeMs, long lastFetchTimeMs,
                     long leaderEndOffsetAtLastFetch) {

    /** A new follower of a new leader: no fetch yet, and a full lag window before it may be dropped from the ISR. */
    static FollowerState initial(int replicaId, long nowMs) {
        return new FollowerState(replicaId, -1, -1, nowMs, 0, 0);
    }

    /**
     * After a fetch from {@code fetchOffset} by the follower's incarnation {@code fetchBrokerEpoch}, that the leader
     * counts, its own log end being {@code leaderEndOffset}.
     */
    FollowerState onFetch(long fetchOffset, long fetchBrokerEpoch, long leaderEndOffset, long nowMs) {
        long caughtUp = lastCaughtUpTimeMs;
        if (fetchOffset >= leaderEndOffset) {
            caughtUp = Math.max(caughtUp, nowMs);
        } else if (fetchOffset >= leaderEndOffsetAtLastFetch) {
            caughtUp = Math.max(caughtUp, lastFetchTimeMs);
        }
        return new FollowerState(replicaId, fetchOffset, fetchBrokerEpoch, caughtUp, nowMs, leaderEndOffset);
    }
}
