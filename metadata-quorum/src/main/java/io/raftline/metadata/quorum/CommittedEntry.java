package io.raftline.metadata.quorum;

import io.raftline.protocol.metadata.MetadataBatch;

/** One applied Raft entry: a metadata batch, or an empty batch for Raft's own entries (configuration, no-op). */
public record CommittedEntry(long index, long term, MetadataBatch batch) {
}
