package io.raftline.client.consumer;

import java.util.Optional;

/**
 * The answer of {@code offsetsForTimes}: the first offset whose timestamp is at or after the time asked for.
 *
 * @param offset      the offset
 * @param timestamp   that record's timestamp
 * @param leaderEpoch the leader epoch of that record, if known
 */
public record OffsetAndTimestamp(long offset, long timestamp, Optional<Integer> leaderEpoch) {

    /** Without a leader epoch. */
    public OffsetAndTimestamp(long offset, long timestamp) {
        this(offset, timestamp, Optional.empty());
    }
}
