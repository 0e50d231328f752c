package io.raftline.client.consumer;

import java.util.Optional;

/**
 * A position to commit or seek to: the offset of the next record to read, with the leader epoch of the last record
 * read (if known) and free-form metadata.
 *
 * @param offset      the next offset to read
 * @param leaderEpoch the epoch of the record before it, if known
 * @param metadata    application metadata, never null
 */
public record OffsetAndMetadata(long offset, Optional<Integer> leaderEpoch, String metadata) {

    /** Checks the offset. */
    public OffsetAndMetadata {
        if (offset < 0) {
            throw new IllegalArgumentException("Invalid negative offset " + offset);
        }
        metadata = metadata == null ? "" : metadata;
    }

    /** Just an offset. */
    public OffsetAndMetadata(long offset) {
        this(offset, Optional.empty(), "");
    }

    /** An offset with metadata. */
    public OffsetAndMetadata(long offset, String metadata) {
        this(offset, Optional.empty(), metadata);
    }
}
