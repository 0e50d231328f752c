package io.raftline.metadata.quorum;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.ratis.protocol.RaftPeer;

/**
 * The membership decisions of {@code quorum add-voter} and {@code quorum remove-voter}, as pure functions from the
 * current Raft configuration to the next one.
 *
 * <p>Removing a voter demotes it to an observer (a Ratis listener): it stops voting and counting towards the
 * majority but goes on receiving the metadata log, as a voter removed from a KRaft quorum goes on fetching as an
 * observer. A Ratis server that is in neither list of the configuration closes itself at its next election timeout,
 * so a voter dropped outright could only come back after a restart, and a node that is also a broker would lose its
 * metadata. Removing an observer drops it from the configuration: that is how a decommissioned node leaves.
 */
public final class QuorumMembership {

    /** The next configuration. */
    public record Change(List<RaftPeer> voters, List<RaftPeer> listeners) {
    }

    private QuorumMembership() {
    }

    /** {@code remove-voter --id nodeId}: a voter becomes an observer; an observer leaves the configuration. */
    public static Change remove(Collection<RaftPeer> voters, Collection<RaftPeer> listeners, int nodeId) {
        List<RaftPeer> nextVoters = new ArrayList<>(voters);
        List<RaftPeer> nextListeners = new ArrayList<>(listeners);
        RaftPeer voter = find(voters, nodeId);
        if (voter != null) {
            if (voters.size() == 1) {
                throw new IllegalArgumentException("cannot remove the last voter");
            }
            nextVoters.remove(voter);
            nextListeners.add(voter);
        } else if (!nextListeners.removeIf(p -> QuorumServer.nodeIdOf(p.getId()) == nodeId)) {
            throw new IllegalArgumentException("node " + nodeId + " is not in the quorum");
        }
        return new Change(nextVoters, nextListeners);
    }

    /** {@code add-voter --id N --endpoint E [as listener]}: the peer joins (or moves to) the list asked for. */
    public static Change add(Collection<RaftPeer> voters, Collection<RaftPeer> listeners, RaftPeer peer,
                             boolean asListener) {
        List<RaftPeer> nextVoters = new ArrayList<>(voters);
        List<RaftPeer> nextListeners = new ArrayList<>(listeners);
        nextVoters.removeIf(p -> p.getId().equals(peer.getId()));
        nextListeners.removeIf(p -> p.getId().equals(peer.getId()));
        if (asListener && nextVoters.isEmpty()) {
            throw new IllegalArgumentException("cannot turn the last voter into an observer");
        }
        (asListener ? nextListeners : nextVoters).add(peer);
        return new Change(nextVoters, nextListeners);
    }

    private static RaftPeer find(Collection<RaftPeer> peers, int nodeId) {
        return peers.stream().filter(p -> QuorumServer.nodeIdOf(p.getId()) == nodeId).findFirst().orElse(null);
    }
}
