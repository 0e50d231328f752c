package io.raftline.broker.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A group's state on its coordinator: members, generation, and committed offsets. Guarded by the coordinator's lock;
 * only the coordinator's classes touch it.
 */
final class Group {

    /** A topic and partition, as the cache keys them (sorted, for stable output). */
    record TopicPartitionKey(String topic, int partition) implements Comparable<TopicPartitionKey> {
        @Override
        public int compareTo(TopicPartitionKey o) {
            int c = topic.compareTo(o.topic);
            return c != 0 ? c : Integer.compare(partition, o.partition);
        }
    }

    final String groupId;
    final int offsetsPartition;
    GroupState state = GroupState.EMPTY;
    /** Wall-clock ms when the group entered its state (an Empty group's offsets expire from then). */
    long stateTimestampMs;
    int generationId;
    String protocolType;
    String protocolName;
    String leaderId;
    /** Members in join order: the first is the leader when the old one left. */
    final LinkedHashMap<String, Member> members = new LinkedHashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED that have not joined yet, with their expiry timers. */
    final Map<String, GroupScheduler.Task> pendingMembers = new HashMap<>();
    final TreeMap<TopicPartitionKey, CommittedOffset> offsets = new TreeMap<>();

    /** Monotonic ms: the join phase ends no later than this. */
    long joinDeadlineMs;
    /** Monotonic ms: while the first members of an empty group trickle in, the join phase lasts at least until this. */
    long initialDelayUntilMs;
    long rebalanceStartMs;
    /** Rebalances begun (from Empty or Stable) since this coordinator loaded the group. */
    long rebalances;
    /** Monotonic ms when the current rebalance began (a restart from CompletingRebalance continues it). */
    long rebalanceBeganMs;
    /** How long the last completed rebalance took (ms), -1 before the first. */
    long lastRebalanceMs = -1;
    GroupScheduler.Task joinTimer;
    GroupScheduler.Task syncTimer;
    /** Set while a DeleteGroups write is in flight. */
    boolean deleting;

    Group(String groupId, int offsetsPartition, long nowWallMs) {
        this.groupId = groupId;
        this.offsetsPartition = offsetsPartition;
        this.stateTimestampMs = nowWallMs;
    }

    /** Moves to {@code next}, failing loudly on a transition the table does not allow. */
    void transitionTo(GroupState next, long nowWallMs) {
        if (!next.validPrevious().contains(state)) {
            throw new IllegalStateException("group " + groupId + " cannot go from " + state + " to " + next);
        }
        state = next;
        stateTimestampMs = nowWallMs;
    }

    boolean is(GroupState s) {
        return state == s;
    }

    boolean hasAllMembersJoined() {
        return pendingMembers.isEmpty() && members.values().stream().allMatch(m -> m.awaitingJoin != null);
    }

    int maxRebalanceTimeoutMs() {
        int max = 0;
        for (Member m : members.values()) {
            max = Math.max(max, m.rebalanceTimeoutMs);
        }
        return max;
    }

    /** Protocol names every member supports, in the first member's order of preference. */
    List<String> candidateProtocols() {
        List<String> out = new ArrayList<>();
        Collection<Member> all = members.values();
        if (all.isEmpty()) {
            return out;
        }
        for (var p : all.iterator().next().protocols) {
            if (all.stream().allMatch(m -> m.supports(p.getName()))) {
                out.add(p.getName());
            }
        }
        return out;
    }

    /** Whether a member with these protocol names could join without leaving the group with no common protocol. */
    boolean supportsProtocols(String type, Set<String> names) {
        if (members.isEmpty()) {
            return !type.isEmpty() && !names.isEmpty();
        }
        if (!type.equals(protocolType)) {
            return false;
        }
        return candidateProtocols().stream().anyMatch(names::contains);
    }

    /**
     * The protocol for the next generation: each member votes for its most preferred candidate; the most votes wins,
     * ties going to the candidate the first member prefers.
     */
    String selectProtocol() {
        List<String> candidates = candidateProtocols();
        if (candidates.isEmpty()) {
            throw new IllegalStateException("group " + groupId + " has members with no protocol in common");
        }
        Map<String, Integer> votes = new LinkedHashMap<>();
        candidates.forEach(c -> votes.put(c, 0));
        for (Member m : members.values()) {
            for (var p : m.protocols) {
                if (votes.containsKey(p.getName())) {
                    votes.merge(p.getName(), 1, Integer::sum);
                    break;
                }
            }
        }
        String best = null;
        int bestVotes = -1;
        for (var e : votes.entrySet()) {
            if (e.getValue() > bestVotes) {
                best = e.getKey();
                bestVotes = e.getValue();
            }
        }
        return best;
    }

    Set<String> memberIds() {
        return new LinkedHashSet<>(members.keySet());
    }
}
