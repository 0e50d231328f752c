package io.raftline.broker.group;

import io.raftline.protocol.group.JoinGroupRequest;
import io.raftline.protocol.group.JoinGroupResponse;
import io.raftline.protocol.group.SyncGroupResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** One member of a group, as the coordinator sees it. Guarded by the coordinator's lock. */
final class Member {

    final String memberId;
    String clientId;
    String clientHost;
    int sessionTimeoutMs;
    int rebalanceTimeoutMs;
    /** The protocols the member supports, in its order of preference. */
    List<JoinGroupRequest.Protocol> protocols;
    /** The assignment of the current generation; empty until the leader's SyncGroup is persisted. */
    byte[] assignment = new byte[0];
    /** Set while the member waits for the join phase to end. */
    CompletableFuture<JoinGroupResponse> awaitingJoin;
    /** Set while the member waits for the leader's assignment. */
    CompletableFuture<SyncGroupResponse> awaitingSync;
    /** Monotonic ms of the last sign of life (join, sync, heartbeat). */
    long lastHeartbeatMs;
    GroupScheduler.Task sessionTimer;

    Member(String memberId, String clientId, String clientHost, int sessionTimeoutMs, int rebalanceTimeoutMs,
           List<JoinGroupRequest.Protocol> protocols) {
        this.memberId = memberId;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.protocols = protocols;
    }

    /** The member's metadata for {@code protocol}, or null if it does not support it. */
    byte[] metadataFor(String protocol) {
        for (JoinGroupRequest.Protocol p : protocols) {
            if (p.getName().equals(protocol)) {
                return p.getMetadata().toByteArray();
            }
        }
        return null;
    }

    boolean supports(String protocol) {
        return protocols.stream().anyMatch(p -> p.getName().equals(protocol));
    }

    /** Whether the member sent exactly these protocols (names and metadata, in order) before. */
    boolean sameProtocols(List<JoinGroupRequest.Protocol> other) {
        return protocols.equals(other);
    }

    /** A member waiting on the coordinator is kept alive by the join or sync deadline instead of its session. */
    boolean awaiting() {
        return awaitingJoin != null || awaitingSync != null;
    }
}
