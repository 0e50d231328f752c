package io.raftline.client.consumer.internals.group;

import java.util.Objects;

/**
 * An offset to commit or a committed one.
 *
 * @param offset      the next offset to consume
 * @param leaderEpoch the leader epoch of the last consumed record, -1 when unknown
 * @param metadata    the application's string, never null
 */
public record CommittedOffset(long offset, int leaderEpoch, String metadata) {

    public CommittedOffset {
        if (offset < 0) {
            throw new IllegalArgumentException("a committed offset cannot be negative: " + offset);
        }
        Objects.requireNonNull(metadata, "metadata");
    }

    public CommittedOffset(long offset) {
        this(offset, -1, "");
    }
}
