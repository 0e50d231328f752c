package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.log.EpochEndOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The follower's decisions on its leader's answers, as tables. */
class FollowerDecisionsTest {

    @Test
    void truncatesToTheSmallerEndOfTheDivergingEpoch() {
        // leader's end of the diverging epoch, this log's answer for that epoch (null: none), this log's start -> target
        Object[][] table = {
            {60L, new EpochEndOffset(4, 80), 0L, 60L},   // this log went on past the leader's end of epoch 4
            {60L, new EpochEndOffset(4, 50), 0L, 50L},   // the leader went on past this log's end of it
            {60L, new EpochEndOffset(2, 40), 0L, 40L},   // this log never had the epoch: its floor ended at 40
            {60L, null, 10L, 10L},                       // this log knows no epoch at or below it: its start
            {0L, new EpochEndOffset(4, 80), 0L, 0L},
        };
        for (Object[] r : table) {
            assertThat(FollowerDecisions.divergenceTruncationOffset((long) r[0], Optional.ofNullable((EpochEndOffset) r[1]),
                (long) r[2])).as("leader end %s, local %s, start %s", r[0], r[1], r[2]).isEqualTo(r[3]);
        }
    }

    @Test
    void outOfRangeStartsOverBeforeTheLeadersStartAndTruncatesPastItsEnd() {
        assertThat(FollowerDecisions.onOutOfRange(100, 200, 50)).isEqualTo(new FollowerDecisions.OutOfRange.StartOver(100));
        assertThat(FollowerDecisions.onOutOfRange(100, 200, 250)).isEqualTo(new FollowerDecisions.OutOfRange.TruncateTo(200));
        assertThat(FollowerDecisions.onOutOfRange(100, 200, 150)).isEqualTo(new FollowerDecisions.OutOfRange.Nothing());
        assertThat(FollowerDecisions.onOutOfRange(-1, -1, 150)).isEqualTo(new FollowerDecisions.OutOfRange.Nothing());
    }

    @Test
    void aFollowersHighWatermarkNeverGoesBackNorPastItsLog() {
        // current, leader's, log end -> next
        long[][] table = {
            {5, 8, 10, 8},
            {5, 12, 10, 10},
            {5, 3, 10, 5},
            {5, 8, 4, 5},
        };
        for (long[] r : table) {
            assertThat(FollowerDecisions.highWatermark(r[0], r[1], r[2])).as("current %s, leader %s, log end %s", r[0], r[1], r[2])
                .isEqualTo(r[3]);
        }
    }
}
