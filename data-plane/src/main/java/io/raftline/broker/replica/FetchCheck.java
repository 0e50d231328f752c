package io.raftline.broker.replica;

import io.raftline.broker.log.EpochEndOffset;
import io.raftline.protocol.ErrorCode;
import java.util.List;
import java.util.Optional;

/**
 * How a leader answers one partition of a fetch, decided from the request and the leader's state alone (no lock,
 * clock or I/O): an error, the point where a follower's log diverged from the leader's, or a read; and whether the
 * fetch moves what the leader knows of that follower (its log end offset and caught-up time, which drive the high
 * watermark and ISR expansion). Checked in this order, the first failure wins:
 * <ol>
 *   <li>the fetch's leader epoch: older is FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH (-1 skips the check);</li>
 *   <li>a follower fetch ({@code replicaId >= 0}) names a replica of the partition other than the leader, else
 *       INELIGIBLE_REPLICA, and carries the epoch that broker is registered with in the leader's metadata image
 *       (KIP-903: not an earlier incarnation, not a client claiming the id), else STALE_BROKER_EPOCH;</li>
 *   <li>a follower's last fetched epoch, when it has one, agrees with the leader's epoch cache: the leader's largest
 *       epoch at or below it is that epoch and ends at or after the fetch offset, else the answer is the divergence
 *       (the leader's epoch and its end offset), for the follower to truncate to;</li>
 *   <li>the fetch offset lies within the leader's log, else OFFSET_OUT_OF_RANGE.</li>
 * </ol>
 * A follower's read moves its state only if it named the leader's current epoch (not -1) and, when it reported a
 * last fetched epoch, the leader could check it (the leader's cache holds an epoch at or below it): an offset
 * the leader could not compare with its own log is never taken as that follower's log end.
 */
final class FetchCheck {

    private FetchCheck() {
    }

    /** The shape of {@link #decide}, for the callers that take the rule as a parameter. */
    @FunctionalInterface
    interface Rule {
        Outcome decide(Fetch fetch, Leader leader, long registeredBrokerEpoch, Optional<EpochEndOffset> endOfLastFetchedEpoch);
    }

    /**
     * One partition of a fetch; {@code replicaId} -1 for a consumer; {@code logStartOffset} the follower's own log
     * start offset (-1 from a consumer, or when not told).
     */
    record Fetch(int replicaId, long replicaBrokerEpoch, long fetchOffset, int currentLeaderEpoch, int lastFetchedEpoch,
                 long logStartOffset) {
        Fetch(int replicaId, long replicaBrokerEpoch, long fetchOffset, int currentLeaderEpoch, int lastFetchedEpoch) {
            this(replicaId, replicaBrokerEpoch, fetchOffset, currentLeaderEpoch, lastFetchedEpoch, -1);
        }

        boolean fromFollower() {
            return replicaId >= 0;
        }
    }

    /** The leader's side: its id, epoch, the partition's replicas and its log's bounds. */
    record Leader(int brokerId, int leaderEpoch, List<Integer> replicas, long logStartOffset, long logEndOffset) {
    }

    /** The decision; a read when {@link #read()}, and then {@code updatesFollower} says if follower state moves. */
    record Outcome(ErrorCode error, String message, int divergingEpoch, long divergingEndOffset, boolean updatesFollower) {
        boolean read() {
            return error == ErrorCode.NONE && divergingEpoch < 0;
        }

        boolean diverging() {
            return divergingEpoch >= 0;
        }

        static Outcome refused(ErrorCode code, String message) {
            return new Outcome(code, message, -1, -1, false);
        }
    }

    /**
     * @param registeredBrokerEpoch the epoch of {@code fetch.replicaId()}'s registration in the leader's image, -1 if
     *                              none (ignored for a consumer)
     * @param endOfLastFetchedEpoch the leader's {@code endOffsetForEpoch(fetch.lastFetchedEpoch())} (ignored unless a
     *                              follower reported a last fetched epoch)
     */
    static Outcome decide(Fetch fetch, Leader leader, long registeredBrokerEpoch, Optional<EpochEndOffset> endOfLastFetchedEpoch) {
        int epoch = leader.leaderEpoch();
        if (fetch.currentLeaderEpoch() >= 0 && fetch.currentLeaderEpoch() < epoch) {
            return Outcome.refused(ErrorCode.FENCED_LEADER_EPOCH, "leader epoch " + fetch.currentLeaderEpoch()
                + " is older than the current " + epoch);
        }
        if (fetch.currentLeaderEpoch() > epoch) {
            return Outcome.refused(ErrorCode.UNKNOWN_LEADER_EPOCH, "leader epoch " + fetch.currentLeaderEpoch()
                + " is newer than this broker knows (" + epoch + ")");
        }
        boolean checkedEpoch = true;
        if (fetch.fromFollower()) {
            if (fetch.replicaId() == leader.brokerId() || !leader.replicas().contains(fetch.replicaId())) {
                return Outcome.refused(ErrorCode.INELIGIBLE_REPLICA, "broker " + fetch.replicaId()
                    + " is not a follower of this partition (replicas " + leader.replicas() + ", leader " + leader.brokerId() + ")");
            }
            if (fetch.replicaBrokerEpoch() != registeredBrokerEpoch) {
                return Outcome.refused(ErrorCode.STALE_BROKER_EPOCH, "broker " + fetch.replicaId() + " fetched with broker epoch "
                    + fetch.replicaBrokerEpoch() + ", not its registered " + registeredBrokerEpoch);
            }
            if (fetch.lastFetchedEpoch() >= 0) {
                checkedEpoch = endOfLastFetchedEpoch.isPresent();
                if (checkedEpoch) {
                    EpochEndOffset end = endOfLastFetchedEpoch.get();
                    if (end.epoch() != fetch.lastFetchedEpoch() || end.endOffset() < fetch.fetchOffset()) {
                        return new Outcome(ErrorCode.NONE, null, end.epoch(), end.endOffset(), false);
                    }
                }
            }
        }
        if (fetch.fetchOffset() < leader.logStartOffset() || fetch.fetchOffset() > leader.logEndOffset()) {
            return Outcome.refused(ErrorCode.OFFSET_OUT_OF_RANGE, "offset " + fetch.fetchOffset() + " is outside ["
                + leader.logStartOffset() + ", " + leader.logEndOffset() + "]");
        }
        boolean updates = fetch.fromFollower() && fetch.currentLeaderEpoch() == epoch && checkedEpoch;
        return new Outcome(ErrorCode.NONE, null, -1, -1, updates);
    }
}
