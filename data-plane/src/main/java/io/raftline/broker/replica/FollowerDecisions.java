package io.raftline.broker.replica;

import io.raftline.broker.log.EpochEndOffset;
import java.util.Optional;

/**
 * How a follower takes its leader's answer to a fetch, decided from the answer and the follower's own log alone (no
 * lock, clock or I/O); {@link ReplicaFetcher} applies the decisions to the log, the replication simulation runs them
 * on in-memory logs.
 */
final class FollowerDecisions {

    private FollowerDecisions() {
    }

    /**
     * Whether an answer to a fetch sent at {@code sentEpoch} from {@code sentOffset} applies to a partition now
     * fetched at {@code leaderEpoch} whose log ends at {@code logEnd}: only if neither moved. Otherwise the answer
     * describes another log than the one it would be applied to (the partition moved to another leader and back, or
     * was truncated, while the request was in flight) and is dropped; the next request asks again.
     */
    static boolean answersCurrentState(int sentEpoch, long sentOffset, int leaderEpoch, long logEnd) {
        return sentEpoch == leaderEpoch && sentOffset == logEnd;
    }

    /**
     * Where to truncate when the leader says this log diverged: the leader's {@code divergingEpoch} ends at
     * {@code leaderEndOffset}; this log's end of that epoch is {@code localEndOfEpoch} (its largest epoch at or below
     * it and where that ended, see {@code LeaderEpochCache.endOffsetFor}), or, when it knows no such epoch, its log
     * start. The smaller of the two ends is the last offset both logs can share (KIP-101, KIP-279).
     */
    static long divergenceTruncationOffset(long leaderEndOffset, Optional<EpochEndOffset> localEndOfEpoch,
                                           long localLogStartOffset) {
        long localEnd = localEndOfEpoch.map(EpochEndOffset::endOffset).orElse(localLogStartOffset);
        return Math.min(leaderEndOffset, localEnd);
    }

    /** What to do about OFFSET_OUT_OF_RANGE: the follower's log is before the leader's start, or past its end. */
    sealed interface OutOfRange {
        /** The leader's log starts past this log's end: empty this log and start it at the leader's start. */
        record StartOver(long offset) implements OutOfRange {
        }

        /** This log ends past the leader's: truncate to the leader's end. */
        record TruncateTo(long offset) implements OutOfRange {
        }

        /** Neither: wait for the metadata or the next fetch. */
        record Nothing() implements OutOfRange {
        }
    }

    /**
     * @param leaderStart the leader's log start offset in its answer (-1 if absent)
     * @param leaderEnd   the leader's log end offset in its answer (-1 if absent)
     */
    static OutOfRange onOutOfRange(long leaderStart, long leaderEnd, long logEnd) {
        if (leaderStart >= 0 && logEnd < leaderStart) {
            return new OutOfRange.StartOver(leaderStart);
        }
        if (leaderEnd >= 0 && logEnd > leaderEnd) {
            return new OutOfRange.TruncateTo(leaderEnd);
        }
        return new OutOfRange.Nothing();
    }

    /** A follower's high watermark after taking its leader's: never back, never past its own log end. */
    static long highWatermark(long current, long leaderHighWatermark, long logEnd) {
        return Math.max(current, Math.min(leaderHighWatermark, logEnd));
    }
}
