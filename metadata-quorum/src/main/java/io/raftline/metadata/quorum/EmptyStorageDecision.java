package io.raftline.metadata.quorum;

import java.util.List;
import java.util.Optional;

/**
 * What a quorum node whose Raft storage is empty may do at start-up: a pure decision over what the other voters say,
 * so that a node that lost its log (wiped, or re-formatted with a new directory id) never votes with an empty log.
 * A voter with an empty log grants its vote to any candidate, however stale, and its acknowledgements no longer
 * back the entries it acknowledged before: committed metadata can be lost and one leader epoch handed to two
 * brokers. KIP-853 identifies a voter by (id, directory id); here the quorum records the directory id with which
 * each node joined ({@code VoterDirectoryRecord}), and an empty node for which one is recorded has lost its log.
 */
public final class EmptyStorageDecision {

    private EmptyStorageDecision() {
    }

    /** This node's place in the quorum's current Raft configuration. */
    public enum Role { VOTER, LISTENER, ABSENT }

    /**
     * What one other voter's Raft server answered: {@code reachable} false when it did not answer (down, or starting
     * itself); else whether its log shows that the quorum has run (an entry of some term, or a snapshot).
     */
    public record PeerView(int peerId, boolean reachable, boolean hasLog) {
        public static PeerView unreachable(int peerId) {
            return new PeerView(peerId, false, false);
        }
    }

    /**
     * The quorum's answer to a linearizable query (through its leader): this node's role in the current
     * configuration, and the directory id it holds for this node (empty: none).
     */
    public record QuorumAnswer(Role role, Optional<String> registered) {
    }

    /** The outcome. */
    public enum Action {
        /** No other voter has a log: this is the quorum's first start; format with {@code quorum.voters} as voters. */
        BOOTSTRAP,
        /** The quorum runs and counts this node as a voter that never joined: format and join as that voter. */
        JOIN_AS_VOTER,
        /** The quorum runs and this node is not one of its voters: format as a listener (add-voter promotes it). */
        JOIN_AS_LISTENER,
        /** The quorum runs: ask it (through its leader) what this node is before deciding. */
        ASK_QUORUM,
        /** This node lost its log while the quorum counts it as a voter: refuse to start. */
        REFUSE
    }

    /** The decision with the reason an operator reads in the log or in the start-up error. */
    public record Decision(Action action, String reason) {
    }

    /**
     * @param nodeId this node
     * @param peers  what each other voter of {@code quorum.voters} answered
     * @param answer the quorum's answer, once asked (empty: not asked yet)
     */
    public static Decision decide(int nodeId, List<PeerView> peers, Optional<QuorumAnswer> answer) {
        if (peers.stream().noneMatch(p -> p.reachable() && p.hasLog())) {
            return new Decision(Action.BOOTSTRAP, "no other voter has a metadata log ("
                + peers.stream().filter(PeerView::reachable).count() + " of " + peers.size()
                + " answered): the quorum's first start");
        }
        if (answer.isEmpty()) {
            return new Decision(Action.ASK_QUORUM, "the quorum has run before this node's start");
        }
        QuorumAnswer a = answer.get();
        if (a.role() != Role.VOTER) {
            return new Decision(Action.JOIN_AS_LISTENER, "the running quorum does not count node " + nodeId
                + " as a voter: it joins as a listener, and `raftline quorum add-voter` makes it a voter once it is"
                + " caught up");
        }
        if (a.registered().isPresent()) {
            return new Decision(Action.REFUSE, "node " + nodeId + " is a voter of the running quorum, which it joined"
                + " with metadata directory " + a.registered().get() + ", but its Raft storage is empty: it lost its log"
                + " (wiped or re-formatted) and must not vote with an empty log. Run `raftline quorum remove-voter"
                + " --id " + nodeId + "` (it stays on as an observer), start this node again (it catches up as"
                + " one), then `raftline quorum add-voter --id " + nodeId + " --endpoint HOST:PORT`");
        }
        return new Decision(Action.JOIN_AS_VOTER, "the running quorum counts node " + nodeId
            + " as a voter that has never joined: it joins as that voter");
    }
}
