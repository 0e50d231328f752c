package io.raftline.cli.verify;

import static io.raftline.cli.verify.Histories.history;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each anomaly's check on hand-made histories: cases it must flag, and look-alikes it must not. */
class ChecksTest {

    private static Arguments flags(String story, Check check, Histories h, long count) {
        return Arguments.of(story, check, h, count);
    }

    private static Arguments passes(String story, Check check, Histories h) {
        return Arguments.of(story, check, h, 0L);
    }

    static Stream<Arguments> cases() {
        Check lost = new Lost(Event.Acks.ALL);
        Check lost1 = new Lost(Event.Acks.ONE);
        Check moved = new Moved();
        Check duplicate = new Duplicate();
        Check inconsistent = new InconsistentOffsets();
        Check nonMonotonic = new NonMonotonicPoll();
        Check skip = new Skip();
        Check regression = new CommittedOffsetRegression();
        return Stream.of(
            flags("lost: acknowledged, the final reads never return it", lost,
                history().acked("v0", 0).acked("v1", 1).finalRead(0, "v0"), 1),
            flags("lost: a group consumer read it, but the final reads do not: the log lost it later", lost,
                history().acked("v0", 0).read("c0", 1, 0, "v0"), 1),
            passes("lost: acknowledged and read back", lost,
                history().acked("v0", 0).acked("v1", 1).finalReads(0, 1)),
            passes("lost: a failed send that is missing was never promised", lost,
                history().failed("v0")),
            passes("lost: an acks=1 record missing does not count as an acks=all loss", lost,
                history().acked1("w0", 0)),
            flags("acks1Lost: the same acks=1 record is reported on its own", lost1,
                history().acked1("w0", 0), 1),

            flags("moved: acknowledged at offset 0, read at offset 1", moved,
                history().acked("v0", 0).finalRead(1, "v0"), 1),
            flags("moved: acknowledged on partition 0, read at the same offset of partition 1", moved,
                history().acked("v0", 0, 4).finalRead(1, 4, "v0"), 1),
            passes("moved: read where it was acknowledged, by a consumer and by the final reads", moved,
                history().acked("v0", 3).read("c0", 1, 3, "v0").finalRead(3, "v0")),
            passes("moved: a failed send stored somewhere is not a moved record", moved,
                history().failed("v0").finalRead(7, "v0")),

            flags("duplicate: one value stored at offsets 0 and 3", duplicate,
                history().failed("v0").finalRead(0, "v0").finalRead(3, "v0"), 1),
            flags("duplicate: a consumer saw it at 2, the final reads at 5", duplicate,
                history().acked("v0", 2).read("c0", 1, 2, "v0").finalRead(5, "v0"), 1),
            passes("duplicate: two readers saw it at the same offset", duplicate,
                history().acked("v0", 2).read("c0", 1, 2, "v0").read("c1", 1, 2, "v0").finalRead(2, "v0")),
            passes("duplicate: the acks=1 producer is not idempotent, its retries may store twice", duplicate,
                history().acked1("w0", 0).finalRead(0, "w0").finalRead(1, "w0")),

            flags("inconsistentOffsets: a consumer saw v0 at offset 5, the final reads v9", inconsistent,
                history().read("c0", 1, 5, "v0").finalRead(5, "v9"), 1),
            flags("inconsistentOffsets: two consumers disagree at offset 1 (acks=1 records count too)", inconsistent,
                history().acked1("w0", 1).read("c0", 1, 1, "w0").read("c1", 1, 1, "w1"), 1),
            passes("inconsistentOffsets: the same value at one offset, read three times", inconsistent,
                history().read("c0", 1, 5, "v5").read("c1", 2, 5, "v5").finalRead(5, "v5")),
            passes("inconsistentOffsets: offset 5 of two different partitions", inconsistent,
                history().read("c0", 1, 0, 5, "a").read("c0", 1, 1, 5, "b")),
            flags("inconsistentOffsets: replica 3's checksum over [0, 40) differs from 1's and 2's", inconsistent,
                history().checksum(1, 0, 40, 0xabc).checksum(2, 0, 40, 0xabc).checksum(3, 0, 40, 0xdef), 1),
            passes("inconsistentOffsets: three replicas agree over [0, 40)", inconsistent,
                history().checksum(1, 0, 40, 0xabc).checksum(2, 0, 40, 0xabc).checksum(3, 0, 40, 0xabc)),
            passes("inconsistentOffsets: checksums over different ranges are not compared", inconsistent,
                history().checksum(1, 0, 40, 0xabc).checksum(2, 0, 38, 0xdef)),
            passes("inconsistentOffsets: an empty range says nothing", inconsistent,
                history().checksum(1, 5, 5, 0).checksum(2, 5, 5, 0xdef)),

            flags("nonMonotonicPoll: 0, 1, 2 then 1 again in one assignment", nonMonotonic,
                history().reads("c0", 1, 0, 2).read("c0", 1, 1, "v1"), 1),
            flags("nonMonotonicPoll: the same offset twice in a row", nonMonotonic,
                history().reads("c0", 1, 0, 1).read("c0", 1, 1, "v1"), 1),
            passes("nonMonotonicPoll: after a reassignment the consumer starts again from the committed offset", nonMonotonic,
                history().reads("c0", 1, 0, 2).reads("c0", 2, 1, 3)),
            passes("nonMonotonicPoll: two consumers interleaved, each going up", nonMonotonic,
                history().read("c0", 1, 5, "v5").read("c1", 1, 0, "v0").read("c0", 1, 6, "v6").read("c1", 1, 1, "v1")),
            passes("nonMonotonicPoll: offsets of different partitions interleaved", nonMonotonic,
                history().read("c0", 1, 0, 5, "a").read("c0", 1, 1, 0, "b").read("c0", 1, 0, 6, "c")),

            flags("skip: 0 then 2, and offset 1 exists", skip,
                history().read("c0", 1, 0, "v0").read("c0", 1, 2, "v2").finalReads(0, 2), 1),
            passes("skip: 0 then 2, and no reader ever saw a record at 1", skip,
                history().read("c0", 1, 0, "v0").read("c0", 1, 2, "v2").finalRead(0, "v0").finalRead(2, "v2")),
            passes("skip: a new assignment may start further on (the committed offset moved meanwhile)", skip,
                history().reads("c0", 1, 0, 1).reads("c0", 2, 3, 4).finalReads(0, 4)),
            passes("skip: consecutive offsets", skip,
                history().reads("c0", 1, 0, 4).finalReads(0, 4)),

            flags("committedOffsetRegression: 10 committed, then a later commit of 5", regression,
                history().commit("c0", 10, 0, 1).commit("c1", 5, 2, 3), 1),
            flags("committedOffsetRegression: the committed offset read back is below a completed commit", regression,
                history().commit("c0", 10, 0, 1).committedRead(7, 5), 1),
            passes("committedOffsetRegression: overlapping commits are not ordered", regression,
                history().commit("c0", 10, 0, 5).commit("c1", 5, 1, 3)),
            passes("committedOffsetRegression: a failed commit of 10 does not count", regression,
                history().commit("g", "c0", 0, 10, 0, 1, "rebalance in progress").commit("c1", 5, 2, 3)),
            passes("committedOffsetRegression: other partitions and other groups are separate", regression,
                history().commit("g", "c0", 0, 10, 0, 1, null).commit("g", "c0", 1, 5, 2, 3, null)
                    .commit("h", "c9", 0, 5, 4, 5, null)),
            passes("committedOffsetRegression: going up, and read back at the last value", regression,
                history().commit("c0", 5, 0, 1).commit("c1", 10, 2, 3).committedRead(10, 9)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void check(String story, Check check, Histories h, long expected) {
        Anomaly found = check.check(h.events());
        assertThat(found.count()).as(story + ": " + found.examples()).isEqualTo(expected);
        assertThat(found.name()).isEqualTo(check.name());
        if (expected > 0) {
            assertThat(found.examples()).isNotEmpty();
            assertThat(found.examples().get(0).detail()).isNotBlank();
        }
    }
}
