package io.raftline.broker.replica;

import io.raftline.broker.log.EpochEndOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.IntToLongFunction;

/**
 * A partition leader's decisions, as pure functions: no lock, clock, log or I/O. The state is the leader epoch, the
 * ISR (and an ISR change in flight), what the leader knows of each follower, its own log end offset and the high
 * watermark; each input (becoming leader, a metadata refresh in the same epoch, a local append, a follower's fetch,
 * the ISR check, the controller's answer to an ISR change) returns the next state and the {@link Effects} the
 * caller applies. {@link Partition} keeps the lock, the log and the produce purgatory, and applies the effects; the
 * replication simulation runs these same functions.
 *
 * <p>Rules:
 * <ul>
 *   <li>the high watermark is the minimum log end offset over the leader and every ISR member (and every member of
 *       an ISR change in flight, so an expansion never commits on a replica that is not yet counted); it never goes
 *       back while this state leads (a follower not yet heard from counts as 0);</li>
 *   <li>a fetch moves a follower's state only if {@link FetchCheck} says so (a replica of the partition, with its
 *       registered broker epoch, at this leader's epoch, its log not diverging); any other fetch changes nothing;</li>
 *   <li>an ISR member not caught up for {@code lagMaxMs} is proposed out; a follower outside the ISR is proposed in
 *       once its log end reaches both the high watermark and this epoch's start offset, counted from a fetch of its
 *       current incarnation (broker epoch), and (after a refusal) it has fetched since;</li>
 *   <li>one ISR change in flight at a time; the controller's committed ISR is taken only for this leader epoch and
 *       a newer partition epoch, from an acceptance, or from a refusal that names a newer partition epoch (the
 *       controller's current registration, as the next metadata brings it);</li>
 *   <li>a change with no answer (a timeout, a lost connection) may still be committed by the controller: it stays
 *       in flight, counted in the high watermark, and is sent again, until an answer or new metadata settles it.
 *       Forgetting it would let the high watermark pass offsets that a member the controller has added lacks, and
 *       the controller may elect that member.</li>
 * </ul>
 *
 * @param pendingIsr the ISR change in flight, or null
 * @param followers  every replica but this one, by id
 * @param isrRefusedAtMs when the controller last refused (or failed to answer) an ISR change
 * @param inDoubt        the change in flight when it got no answer, or null: the controller may still commit it,
 *                       so it stays counted in the high watermark and is sent again, unchanged (the same member
 *                       epochs), at the next ISR check
 */
record PartitionState(int localId, int leaderEpoch, int partitionEpoch, List<Integer> replicas, List<Integer> isr,
                             List<Integer> pendingIsr, SortedMap<Integer, FollowerState> followers, long logEndOffset,
                             long highWatermark, long epochStartOffset, long isrRefusedAtMs, IsrChange inDoubt) {

    public PartitionState {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        pendingIsr = pendingIsr == null ? null : List.copyOf(pendingIsr);
        followers = Collections.unmodifiableSortedMap(new TreeMap<>(followers));
    }

    /** No refusal yet. */
    static final long NEVER = Long.MIN_VALUE / 2;

    /**
     * A proposed ISR change from {@code fromIsr} (the ISR when it was proposed) to {@code newIsr}, with the epochs the
     * controller checks it against.
     */
    public record IsrChange(List<Integer> fromIsr, List<Integer> newIsr, int leaderEpoch, int partitionEpoch,
                            String reason, List<Long> newIsrBrokerEpochs) {
        public IsrChange {
            newIsrBrokerEpochs = List.copyOf(newIsrBrokerEpochs);
        }

        /** A change without the members' broker epochs (the controller then does not check them). */
        public IsrChange(List<Integer> fromIsr, List<Integer> newIsr, int leaderEpoch, int partitionEpoch, String reason) {
            this(fromIsr, newIsr, leaderEpoch, partitionEpoch, reason, List.of());
        }
    }

    /**
     * What the caller does after a transition: when {@code advanceHighWatermarkTo >= 0}, the high watermark moved up
     * to it and the acks=all waiters below it complete; when {@code proposal} is set, send it to the controller; when
     * {@code expandNow}, a fetch made a follower eligible to join the ISR, so run the ISR check now.
     */
    public record Effects(long advanceHighWatermarkTo, IsrChange proposal, boolean expandNow) {
        public static final Effects NONE = new Effects(-1, null, false);

        public boolean advancedHighWatermark() {
            return advanceHighWatermarkTo >= 0;
        }
    }

    /** The next state and what to do about it. */
    public record Transition(PartitionState state, Effects effects) {
    }

    /** A follower's fetch and what the leader's log says about it. */
    public record FollowerFetch(FetchCheck.Fetch fetch, long registeredBrokerEpoch,
                                Optional<EpochEndOffset> endOfLastFetchedEpoch, long logStartOffset) {
    }

    /**
     * Becoming the leader of {@code leaderEpoch}: every other replica a follower not heard from, the high watermark
     * the one this replica knew ({@code knownHighWatermark}, at most its log end), then advanced as far as the ISR
     * allows.
     *
     * @param epochStartOffset where the log recorded this epoch to start (its log end when the role is taken)
     */
    public static Transition becomeLeader(int localId, int leaderEpoch, int partitionEpoch, List<Integer> replicas,
                                          List<Integer> isr, long logEndOffset, long epochStartOffset,
                                          long knownHighWatermark, long nowMs) {
        SortedMap<Integer, FollowerState> followers = new TreeMap<>();
        for (int replica : replicas) {
            if (replica != localId) {
                followers.put(replica, FollowerState.initial(replica, nowMs));
            }
        }
        PartitionState s = new PartitionState(localId, leaderEpoch, partitionEpoch, replicas, isr, null, followers,
            logEndOffset, Math.min(knownHighWatermark, logEndOffset), epochStartOffset, NEVER, null);
        return s.advanced(Effects.NONE);
    }

    /**
     * New metadata within this leader epoch: its replicas and ISR; an ISR change in flight is dropped (the controller
     * refuses it now: its partition epoch is gone). Metadata at a partition epoch this leader already has (it took
     * it from the controller's answer to its own ISR change, which usually arrives first) changes nothing: dropping
     * the change proposed since would let the high watermark pass offsets a member the controller may still add
     * lacks.
     */
    public Transition refresh(int newPartitionEpoch, List<Integer> newReplicas, List<Integer> newIsr, long nowMs) {
        if (newPartitionEpoch <= partitionEpoch) {
            return unchanged();
        }
        SortedMap<Integer, FollowerState> next = new TreeMap<>();
        for (int replica : newReplicas) {
            if (replica != localId) {
                FollowerState known = followers.get(replica);
                next.put(replica, known != null ? known : FollowerState.initial(replica, nowMs));
            }
        }
        return new PartitionState(localId, leaderEpoch, newPartitionEpoch, newReplicas, newIsr, null, next,
            logEndOffset, highWatermark, epochStartOffset, isrRefusedAtMs, null).advanced(Effects.NONE);
    }

    /** This leader appended to its log, which now ends at {@code newLogEndOffset}. */
    public Transition onLocalAppend(long newLogEndOffset) {
        return withLogEnd(newLogEndOffset).advanced(Effects.NONE);
    }

    /** Whether an acks=all produce may be appended: the ISR holds at least {@code minIsr} replicas. */
    public boolean admitsAcksAll(int minIsr) {
        return isr.size() >= minIsr;
    }

    /**
     * A follower's fetch, checked by {@link FetchCheck#decide}. See {@link #onFollowerFetch(FollowerFetch, long, long,
     * FetchCheck.Rule)}.
     */
    public Transition onFollowerFetch(FollowerFetch in, long nowMs, long refusalBackoffMs) {
        return onFollowerFetch(in, nowMs, refusalBackoffMs, FetchCheck::decide);
    }

    /**
     * A follower's fetch: if {@code rule} says it moves that follower's state (production: {@link FetchCheck#decide};
     * the simulation also passes mutated copies to show it catches them), the follower's log end becomes the fetch
     * offset and the high watermark may advance; {@code expandNow} when the follower, outside the ISR, is now
     * eligible to join it, no ISR change is in flight, and the controller has not refused one in the last
     * {@code refusalBackoffMs}.
     */
    public Transition onFollowerFetch(FollowerFetch in, long nowMs, long refusalBackoffMs, FetchCheck.Rule rule) {
        FetchCheck.Fetch fetch = in.fetch();
        FollowerState follower = followers.get(fetch.replicaId());
        if (follower == null) {
            return unchanged();
        }
        FetchCheck.Outcome outcome = rule.decide(fetch, new FetchCheck.Leader(localId, leaderEpoch, replicas,
            in.logStartOffset(), logEndOffset), in.registeredBrokerEpoch(), in.endOfLastFetchedEpoch());
        if (!outcome.updatesFollower()) {
            return unchanged();
        }
        FollowerState updated = follower.onFetch(fetch.fetchOffset(), fetch.replicaBrokerEpoch(), logEndOffset, nowMs);
        SortedMap<Integer, FollowerState> next = new TreeMap<>(followers);
        next.put(updated.replicaId(), updated);
        PartitionState s = new PartitionState(localId, leaderEpoch, partitionEpoch, replicas, isr, pendingIsr, next,
            logEndOffset, highWatermark, epochStartOffset, isrRefusedAtMs, inDoubt);
        Transition t = s.advanced(Effects.NONE);
        PartitionState after = t.state();
        boolean joinable = after.pendingIsr == null && !isr.contains(fetch.replicaId())
            && updated.logEndOffset() >= after.highWatermark && updated.logEndOffset() >= epochStartOffset
            && nowMs - isrRefusedAtMs >= refusalBackoffMs;
        return new Transition(after, new Effects(t.effects().advanceHighWatermarkTo(), null, joinable));
    }

    /**
     * The ISR check at {@code nowMs}: the change this leader wants, if any and none is in flight; the proposal is
     * then in flight (it counts towards the high watermark) until {@link #onIsrChangeAnswered}. A follower joins
     * only on what its current incarnation fetched: the broker epoch of its last counted fetch must be the one
     * {@code registeredBrokerEpoch} gives for it now (KIP-903), so a broker that restarted with less data (a lost
     * unflushed tail, a replaced disk) is not taken back on its previous incarnation's log end.
     */
    public Transition proposeIsrChange(long nowMs, long lagMaxMs, IntToLongFunction registeredBrokerEpoch) {
        if (pendingIsr != null) {
            if (inDoubt == null) {
                return unchanged();
            }
            // The same request again: a member that restarted since is refused by the controller, not re-judged here.
            IsrChange retry = new IsrChange(inDoubt.fromIsr(), inDoubt.newIsr(), inDoubt.leaderEpoch(), inDoubt.partitionEpoch(),
                "retry: no answer to the last request", inDoubt.newIsrBrokerEpochs());
            PartitionState s = new PartitionState(localId, leaderEpoch, partitionEpoch, replicas, isr, pendingIsr, followers,
                logEndOffset, highWatermark, epochStartOffset, isrRefusedAtMs, null);
            return new Transition(s, new Effects(-1, retry, false));
        }
        List<Integer> next = new ArrayList<>();
        List<Integer> out = new ArrayList<>();
        List<Integer> in = new ArrayList<>();
        for (int replica : isr) {
            FollowerState state = followers.get(replica);
            if (replica == localId || (state != null && nowMs - state.lastCaughtUpTimeMs() <= lagMaxMs)) {
                next.add(replica);
            } else {
                out.add(replica);
            }
        }
        for (FollowerState state : followers.values()) {
            // After a refusal (the follower's broker is fenced, e.g. dead), only a follower that has fetched since is
            // proposed again: a dead one stays caught up by offsets while nothing is written, and would otherwise be
            // proposed at every check until the lag window ends.
            if (!isr.contains(state.replicaId()) && state.logEndOffset() >= highWatermark
                && state.logEndOffset() >= epochStartOffset && nowMs - state.lastCaughtUpTimeMs() <= lagMaxMs
                && state.lastFetchTimeMs() > isrRefusedAtMs
                && state.brokerEpoch() == registeredBrokerEpoch.applyAsLong(state.replicaId())) {
                next.add(state.replicaId());
                in.add(state.replicaId());
            }
        }
        if (out.isEmpty() && in.isEmpty()) {
            return unchanged();
        }
        List<Integer> ordered = new ArrayList<>();
        for (int replica : replicas) {
            if (next.contains(replica)) {
                ordered.add(replica);
            }
        }
        String reason = (out.isEmpty() ? "" : "shrink: " + out + " lagged more than " + lagMaxMs + " ms")
            + (in.isEmpty() ? "" : (out.isEmpty() ? "" : "; ") + "expand: " + in + " caught up");
        IsrChange change = new IsrChange(isr, ordered, leaderEpoch, partitionEpoch, reason, brokerEpochsOf(ordered));
        PartitionState s = new PartitionState(localId, leaderEpoch, partitionEpoch, replicas, isr, ordered, followers,
            logEndOffset, highWatermark, epochStartOffset, isrRefusedAtMs, null);
        return new Transition(s, new Effects(-1, change, false));
    }

    /**
     * The controller answered {@code change}: an answer to another change than the one in flight is ignored; a
     * refusal is remembered at {@code nowMs}; an answer for this leader epoch with a newer partition epoch (an
     * acceptance, or a refusal because the registration moved on) makes {@code committedIsr}, the controller's ISR,
     * this leader's. The high watermark may then advance.
     *
     * @param newPartitionEpoch the partition epoch of {@code committedIsr}, -1 when the answer carries none
     */
    public Transition onIsrChangeAnswered(IsrChange change, List<Integer> committedIsr, int newPartitionEpoch,
                                          boolean accepted, long nowMs) {
        if (pendingIsr == null || !pendingIsr.equals(change.newIsr())) {
            return unchanged();
        }
        List<Integer> nextIsr = isr;
        int nextPartitionEpoch = partitionEpoch;
        if (change.leaderEpoch() == leaderEpoch && newPartitionEpoch > partitionEpoch && !committedIsr.isEmpty()) {
            nextIsr = committedIsr;
            nextPartitionEpoch = newPartitionEpoch;
        }
        PartitionState s = new PartitionState(localId, leaderEpoch, nextPartitionEpoch, replicas, nextIsr, null,
            followers, logEndOffset, highWatermark, epochStartOffset, accepted ? isrRefusedAtMs : nowMs, null);
        return s.advanced(Effects.NONE);
    }

    /**
     * {@code change} got no answer (the request timed out or its connection failed): the controller may have
     * committed it or may still do so, so it stays in flight and counted in the high watermark, in doubt; the next
     * ISR check sends it again. An answer to another change than the one in flight is ignored.
     */
    public Transition onIsrChangeUnanswered(IsrChange change, long nowMs) {
        if (pendingIsr == null || !pendingIsr.equals(change.newIsr())) {
            return unchanged();
        }
        return new Transition(new PartitionState(localId, leaderEpoch, partitionEpoch, replicas, isr, pendingIsr, followers,
            logEndOffset, highWatermark, epochStartOffset, nowMs, change), Effects.NONE);
    }

    /** Each follower's log end offset as this leader last counted it (-1 before its first counted fetch). */
    public Map<Integer, Long> followerEndOffsets() {
        Map<Integer, Long> out = new TreeMap<>();
        followers.forEach((id, state) -> out.put(id, state.logEndOffset()));
        return out;
    }

    /** When each follower was last caught up with this leader (this leader's clock, ms; its lag in time is now minus this). */
    public Map<Integer, Long> followerLastCaughtUpMs() {
        Map<Integer, Long> out = new TreeMap<>();
        followers.forEach((id, state) -> out.put(id, state.lastCaughtUpTimeMs()));
        return out;
    }

    /** The broker epoch each member's last counted fetch carried (-1 for this leader and a member not heard from). */
    private List<Long> brokerEpochsOf(List<Integer> members) {
        List<Long> out = new ArrayList<>();
        for (int r : members) {
            FollowerState f = followers.get(r);
            out.add(r == localId || f == null ? -1L : f.brokerEpoch());
        }
        return out;
    }

    private Transition unchanged() {
        return new Transition(this, Effects.NONE);
    }

    private PartitionState withLogEnd(long newLogEndOffset) {
        return new PartitionState(localId, leaderEpoch, partitionEpoch, replicas, isr, pendingIsr, followers,
            newLogEndOffset, highWatermark, epochStartOffset, isrRefusedAtMs, inDoubt);
    }

    /** This state with the high watermark advanced as far as the ISR (and the change in flight) allows. */
    private Transition advanced(Effects effects) {
        long newHw = minEndOffset(logEndOffset, isr);
        if (pendingIsr != null) {
            newHw = minEndOffset(newHw, pendingIsr);
        }
        if (newHw <= highWatermark) {
            return new Transition(this, effects);
        }
        PartitionState s = new PartitionState(localId, leaderEpoch, partitionEpoch, replicas, isr, pendingIsr, followers,
            logEndOffset, newHw, epochStartOffset, isrRefusedAtMs, inDoubt);
        return new Transition(s, new Effects(newHw, effects.proposal(), effects.expandNow()));
    }

    private long minEndOffset(long start, List<Integer> members) {
        long min = start;
        for (int replica : members) {
            if (replica != localId) {
                FollowerState state = followers.get(replica);
                min = Math.min(min, Math.max(state == null ? -1 : state.logEndOffset(), 0));
            }
        }
        return min;
    }

    /**
     * Whether this leader refuses writes because it has probably been replaced without knowing it: the controller has
     * not answered it for longer than the broker session ({@code controllerSilenceMs > sessionTimeoutMs}; the controller
     * fences a silent broker after that and elects other leaders), and a member of its ISR has not fetched for as long
     * (so an acks=all write could not commit here, and the followers have likely moved to another leader). Clients
     * told NOT_LEADER_OR_FOLLOWER look the leader up again instead of waiting out their request timeout. While every
     * ISR follower still fetches (the quorum alone unreachable, as in a quorum without a majority) writes go on, and
     * a leader without followers in its ISR never refuses for this.
     */
    boolean refusesWrites(long nowMs, long controllerSilenceMs, long sessionTimeoutMs) {
        if (controllerSilenceMs <= sessionTimeoutMs) {
            return false;
        }
        for (int id : isr) {
            if (id == localId) {
                continue;
            }
            FollowerState f = followers.get(id);
            if (f == null || nowMs - f.lastFetchTimeMs() > sessionTimeoutMs) {
                return true;
            }
        }
        return false;
    }
}
