package io.raftline.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A replica's checksum over a range: equal on a follower holding the leader's batches, different on a divergent one. */
class LogChecksumTest {

    @TempDir
    Path tmp;

    private static void fill(Log log, String tag) {
        log.appendAsLeader(TestBatches.batch(3, tag + "a", 100), 1);
        log.appendAsLeader(TestBatches.batch(2, tag + "b", 200), 1);
        log.appendAsLeader(TestBatches.batch(4, tag + "c", 300), 2);
    }

    @Test
    void aFollowerWithTheLeadersBatchesHasTheSameChecksumAndADivergentOneDoesNot() throws Exception {
        try (LogFixture leader = new LogFixture(tmp.resolve("leader"), Map.of());
             LogFixture follower = new LogFixture(tmp.resolve("follower"), Map.of());
             LogFixture divergent = new LogFixture(tmp.resolve("divergent"), Map.of())) {
            fill(leader.log, "x");
            ByteBuffer copy = leader.log.read(0, 1 << 20, Long.MAX_VALUE, true).readIntoBuffer();
            follower.log.appendAsFollower(copy, 0);
            fill(divergent.log, "y");

            LogChecksum.Result l = LogChecksum.compute(leader.log, 0, 9);
            assertThat(l).isEqualTo(LogChecksum.compute(follower.log, 0, 9));
            assertThat(l.from()).isZero();
            assertThat(l.to()).isEqualTo(9);
            assertThat(l.batches()).isEqualTo(3);
            LogChecksum.Result d = LogChecksum.compute(divergent.log, 0, 9);
            assertThat(d.crc32c()).isNotEqualTo(l.crc32c());
            assertThat(d.to()).isEqualTo(9);
        }
    }

    @Test
    void onlyWholeBatchesInsideTheRangeAreCovered() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            fill(f.log, "x");
            // batches [0, 3), [3, 5), [5, 9): from 1 skips the first, to 8 drops the last
            LogChecksum.Result r = LogChecksum.compute(f.log, 1, 8);
            assertThat(r.from()).isEqualTo(3);
            assertThat(r.to()).isEqualTo(5);
            assertThat(r.batches()).isEqualTo(1);
            assertThat(LogChecksum.compute(f.log, 3, 5)).isEqualTo(r);
            LogChecksum.Result none = LogChecksum.compute(f.log, 4, 5);
            assertThat(none.batches()).isZero();
            assertThat(none.to()).isEqualTo(none.from());
            assertThat(LogChecksum.compute(f.log, 0, 100).to()).as("clipped to the log end").isEqualTo(9);
        }
    }
}
