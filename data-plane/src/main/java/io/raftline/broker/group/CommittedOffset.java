package io.raftline.broker.group;

/**
 * A committed offset as the coordinator caches it.
 *
 * @param offset            the next offset the group will consume
 * @param leaderEpoch       the leader epoch of the record before it, -1 when unknown
 * @param metadata          the committer's string
 * @param commitTimestampMs wall-clock time of the commit, for retention
 */
record CommittedOffset(long offset, int leaderEpoch, String metadata, long commitTimestampMs) {
}
