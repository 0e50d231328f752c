package io.raftline.broker.group;

/**
 * A committed offset as the coordinator caches it.
 *
 * @param offset            the next offset the group will consume
 * @param leaderEpoch       the leader epoch of the record before it, -1 when unknown
 * @param metadata          the committer's string
 * @param commitTimestampMs wall-clock time of the commit, for retention
 * @param logOffset         the offset of its record in {@code __consumer_offsets}: the log's order, which the cache
 *                          follows (see {@link #latest})
 */
record CommittedOffset(long offset, int leaderEpoch, String metadata, long commitTimestampMs, long logOffset) {

    /**
     * Of the cached offset ({@code cached}, null if none) and a commit now stored ({@code stored}), the one whose record
     * comes later in the log: the one a coordinator loading the log would hold. Commits of one partition may complete
     * in another order than their records were appended (acknowledgements arrive on different threads).
     */
    static CommittedOffset latest(CommittedOffset cached, CommittedOffset stored) {
        return cached == null || stored.logOffset() > cached.logOffset() ? stored : cached;
    }
}
