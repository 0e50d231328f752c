package io.raftline.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.cli.command.OffsetReset.Kind;
import io.raftline.cli.command.OffsetReset.Partition;
import io.raftline.cli.command.OffsetReset.Spec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OffsetResetTest {

    /** A partition whose log holds offsets 100..199 (log end 200), committed at 150, 120 found for the time. */
    private static final Partition MID = new Partition(100, 200, 150L, 120L, 170L);
    /** The same log without a commit, a time later than every record and no line in the file. */
    private static final Partition BARE = new Partition(100, 200, null, null, null);
    /** An empty log. */
    private static final Partition EMPTY = new Partition(0, 0, null, null, 5L);

    private record Row(Spec spec, Partition partition, long expected) {
    }

    @Test
    void eachRuleAsKafkaConsumerGroupsDecidesIt() {
        Row[] table = {
            new Row(Spec.of(Kind.EARLIEST), MID, 100),
            new Row(Spec.of(Kind.LATEST), MID, 200),
            new Row(Spec.of(Kind.CURRENT), MID, 150),
            new Row(Spec.of(Kind.CURRENT), BARE, 200),                                // no commit: the log end
            new Row(Spec.of(Kind.CURRENT), new Partition(100, 200, 50L, null, null), 50), // as it is, even outside
            new Row(new Spec(Kind.OFFSET, 130), MID, 130),
            new Row(new Spec(Kind.OFFSET, 5), MID, 100),                              // clamped up to the log start
            new Row(new Spec(Kind.OFFSET, 500), MID, 200),                            // clamped down to the log end
            new Row(new Spec(Kind.OFFSET, 200), MID, 200),
            new Row(new Spec(Kind.SHIFT_BY, -10), MID, 140),
            new Row(new Spec(Kind.SHIFT_BY, 10), MID, 160),
            new Row(new Spec(Kind.SHIFT_BY, -1000), MID, 100),
            new Row(new Spec(Kind.SHIFT_BY, 1000), MID, 200),
            new Row(new Spec(Kind.SHIFT_BY, Long.MAX_VALUE), MID, 200),              // no overflow
            new Row(new Spec(Kind.SHIFT_BY, Long.MIN_VALUE), MID, 100),
            new Row(new Spec(Kind.TIMESTAMP, 1_700_000_000_000L), MID, 120),
            new Row(new Spec(Kind.TIMESTAMP, 1_700_000_000_000L), BARE, 200),        // nothing that late: the log end
            new Row(Spec.of(Kind.FILE), MID, 170),
            new Row(Spec.of(Kind.FILE), new Partition(100, 200, null, null, 3L), 100),
            new Row(Spec.of(Kind.FILE), new Partition(100, 200, null, null, 999L), 200),
            new Row(Spec.of(Kind.FILE), EMPTY, 0),
            new Row(new Spec(Kind.OFFSET, 7), EMPTY, 0),
            new Row(Spec.of(Kind.LATEST), EMPTY, 0),
        };
        for (Row row : table) {
            assertThat(OffsetReset.newOffset(row.spec(), row.partition())).as("%s on %s", row.spec(), row.partition())
                .isEqualTo(row.expected());
        }
    }

    @Test
    void shiftNeedsACommitAndAFilePlanNeedsTheLine() {
        assertThatThrownBy(() -> OffsetReset.newOffset(new Spec(Kind.SHIFT_BY, 1), BARE))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no committed offset");
        assertThatThrownBy(() -> OffsetReset.newOffset(Spec.of(Kind.FILE), BARE))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no offset");
    }

    @Test
    void byDurationMeansThatLongBeforeNow() {
        long now = 1_700_000_000_000L;
        assertThat(OffsetReset.timestampBefore(now, Duration.parse("PT30M"))).isEqualTo(now - 30 * 60_000L);
        assertThat(OffsetReset.timestampBefore(now, Duration.parse("P1DT2H3M4S")))
            .isEqualTo(now - ((26 * 60 + 3) * 60 + 4) * 1000L);
        assertThat(OffsetReset.timestampBefore(now, Duration.ZERO)).isEqualTo(now);
        assertThatThrownBy(() -> OffsetReset.timestampBefore(now, Duration.parse("-PT1H")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
    }
}
