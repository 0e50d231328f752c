package io.raftline.client.admin;

import java.util.concurrent.CompletableFuture;

/** The outcome of {@link Admin#describeMetadataQuorum()}. */
public final class DescribeMetadataQuorumResult {

    private final CompletableFuture<QuorumInfo> quorumInfo;

    DescribeMetadataQuorumResult(CompletableFuture<QuorumInfo> quorumInfo) {
        this.quorumInfo = quorumInfo;
    }

    /** The quorum's state. */
    public CompletableFuture<QuorumInfo> quorumInfo() {
        return quorumInfo;
    }
}
