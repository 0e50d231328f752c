package io.raftline.broker.log;

/** The answer to "end offset for epoch E": the largest known epoch <= E and the offset where it ended. */
public record EpochEndOffset(int epoch, long endOffset) {
}
