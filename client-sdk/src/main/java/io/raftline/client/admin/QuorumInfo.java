package io.raftline.client.admin;

import java.util.List;

/**
 * The metadata quorum as {@link Admin#describeMetadataQuorum()} reports it.
 *
 * @param leaderId        the Raft leader (active controller), -1 if none
 * @param term            the Raft term
 * @param controllerEpoch the epoch of the latest controller change
 * @param commitIndex     the quorum's commit index
 * @param voters          voting members
 * @param observers       non-voting listeners
 */
public record QuorumInfo(int leaderId, long term, int controllerEpoch, long commitIndex, List<ReplicaState> voters,
                         List<ReplicaState> observers) {

    /** Copies the lists. */
    public QuorumInfo {
        voters = List.copyOf(voters);
        observers = List.copyOf(observers);
    }

    /**
     * One quorum member.
     *
     * @param replicaId     node id
     * @param endpoint      its quorum endpoint
     * @param lagEntries    the leader's last index minus this member's match index
     * @param lastContactMs milliseconds since the leader last heard from it, -1 never
     */
    public record ReplicaState(int replicaId, String endpoint, long lagEntries, long lastContactMs) {
    }
}
