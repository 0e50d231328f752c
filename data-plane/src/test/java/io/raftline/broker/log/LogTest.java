package io.raftline.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.protocol.ErrorCode;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Append, read, roll, truncate, timestamps, epochs, restart, and bad input on one log. */
class LogTest {

    @Test
    void segmentFilesAreNamedByTheirBaseOffsetInTwentyDigits() {
        assertThat(LogSegment.fileName(0, ".log")).isEqualTo("00000000000000000000.log");
        assertThat(LogSegment.fileName(1234, ".index")).isEqualTo("00000000000000001234.index");
        assertThat(LogSegment.fileName(Long.MAX_VALUE, ".timeindex")).isEqualTo("09223372036854775807.timeindex");
        assertThat(LogSegment.fileName(98765, "")).isEqualTo(String.format("%020d", 98765));
        assertThatThrownBy(() -> LogSegment.fileName(-1, ".log")).isInstanceOf(IllegalArgumentException.class);
    }


    @TempDir
    Path tmp;

    private static String v(String tag, int i) {
        return "v-" + tag + "-" + i;
    }

    @Test
    void appendsAssignOffsetsAndReadsReturnWholeBatches() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            LogAppendInfo a = f.log.appendAsLeader(TestBatches.batch(3, "a", 100), 1);
            LogAppendInfo b = f.log.appendAsLeader(TestBatches.batch(2, "b", 200), 1);
            assertThat(a.firstOffset()).isZero();
            assertThat(a.lastOffset()).isEqualTo(2);
            assertThat(b.firstOffset()).isEqualTo(3);
            assertThat(b.maxTimestamp()).isEqualTo(200);
            assertThat(f.log.logEndOffset()).isEqualTo(5);

            FetchDataInfo all = f.log.read(0, 1 << 20, Long.MAX_VALUE, false);
            assertThat(TestBatches.records(all)).containsExactly(Map.entry(0L, v("a", 0)), Map.entry(1L, v("a", 1)),
                Map.entry(2L, v("a", 2)), Map.entry(3L, v("b", 0)), Map.entry(4L, v("b", 1)));
            // the slices count their records from the batch headers, without the bytes being read
            assertThat(all.recordCount()).isEqualTo(5);
            assertThat(f.log.read(0, 1 << 20, 3, false).recordCount()).isEqualTo(3);
            // from the middle of a batch: the whole batch holding it
            assertThat(TestBatches.records(f.log.read(1, 1 << 20, Long.MAX_VALUE, false)).get(0).getKey()).isZero();
            // upper bound (high watermark) stops before the second batch
            assertThat(TestBatches.records(f.log.read(0, 1 << 20, 3, false))).hasSize(3);
            assertThat(f.log.read(3, 1 << 20, 3, false).isEmpty()).isTrue();
            // byte limit: nothing unless minOneBatch
            assertThat(f.log.read(0, 10, Long.MAX_VALUE, false).isEmpty()).isTrue();
            assertThat(TestBatches.records(f.log.read(0, 10, Long.MAX_VALUE, true))).hasSize(3);
            assertThat(f.log.read(5, 100, Long.MAX_VALUE, true).isEmpty()).isTrue();
            assertThatThrownBy(() -> f.log.read(6, 100, Long.MAX_VALUE, true))
                .isInstanceOf(LogException.class).extracting(e -> ((LogException) e).code()).isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE);

            // the stored bytes carry the stamped offset and epoch
            ByteBuffer stored = all.readIntoBuffer();
            RecordBatch second = RecordBatch.view(stored, RecordBatch.view(stored, 0).sizeInBytes());
            assertThat(second.baseOffset()).isEqualTo(3);
            assertThat(second.partitionLeaderEpoch()).isEqualTo(1);
            assertThat(second.isValid()).isTrue();
        }
    }

    @Test
    void badInputIsRefusedAndWritesNothing() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.MAX_MESSAGE_BYTES, "2000"))) {
            f.log.appendAsLeader(TestBatches.batch(1, "ok", 1), 0);
            long size = f.log.size();
            ByteBuffer corrupt = TestBatches.batch(2, "x", 1);
            corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 1));
            assertCode(() -> f.log.appendAsLeader(corrupt, 0), ErrorCode.CORRUPT_MESSAGE);
            ByteBuffer magic = TestBatches.batch(2, "x", 1);
            magic.put(RecordBatch.MAGIC_OFFSET, (byte) 1);
            assertCode(() -> f.log.appendAsLeader(magic, 0), ErrorCode.UNSUPPORTED_FORMAT);
            assertCode(() -> f.log.appendAsLeader(TestBatches.sized(3, 1000, 1), 0), ErrorCode.MESSAGE_TOO_LARGE);
            ByteBuffer cut = TestBatches.batch(2, "x", 1);
            cut.limit(cut.limit() - 3);
            assertCode(() -> f.log.appendAsLeader(cut, 0), ErrorCode.CORRUPT_MESSAGE);
            // a good batch followed by a bad one: nothing of either
            ByteBuffer two = ByteBuffer.allocate(200);
            two.put(TestBatches.batch(1, "good", 1)).put(TestBatches.batch(1, "bad", 1)).flip();
            two.put(two.limit() - 1, (byte) 0x7f);
            assertCode(() -> f.log.appendAsLeader(two, 0), ErrorCode.CORRUPT_MESSAGE);
            assertThat(f.log.logEndOffset()).isEqualTo(1);
            assertThat(f.log.size()).isEqualTo(size);
        }
    }

    private static void assertCode(Runnable r, ErrorCode code) {
        assertThatThrownBy(r::run).isInstanceOf(LogException.class).extracting(e -> ((LogException) e).code()).isEqualTo(code);
    }

    @Test
    void rollsBySizeAndByTimeAndReadsAcrossSegments() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, "1000", LogConfig.SEGMENT_MS, "60000"))) {
            for (int i = 0; i < 10; i++) {
                f.log.appendAsLeader(TestBatches.sized(2, 150, i), 0);
            }
            int bySize = f.log.numberOfSegments();
            assertThat(bySize).isGreaterThan(3);
            assertThat(f.log.read(0, 1 << 20, Long.MAX_VALUE, false).sizeInBytes()).isLessThanOrEqualTo(1000);
            f.time.advance(60_000);
            f.log.appendAsLeader(TestBatches.batch(1, "late", 5), 0);
            assertThat(f.log.numberOfSegments()).isEqualTo(bySize + 1);
            long total = 0;
            long offset = 0;
            while (offset < f.log.logEndOffset()) {
                List<Map.Entry<Long, String>> got = TestBatches.records(f.log.read(offset, 1 << 20, Long.MAX_VALUE, true));
                assertThat(got.get(0).getKey()).isEqualTo(offset);
                assertThat(f.log.read(offset, 1 << 20, Long.MAX_VALUE, true).recordCount()).isEqualTo(got.size());
                total += got.size();
                offset = got.get(got.size() - 1).getKey() + 1;
            }
            assertThat(total).isEqualTo(21);
            String[] names = f.dir.toFile().list();
            assertThat(names).contains("00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.timeindex",
                "partition.metadata", "leader-epoch-checkpoint");
        }
    }

    @Test
    void sparseIndexFindsEveryOffset() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.INDEX_INTERVAL_BYTES, "200"))) {
            for (int i = 0; i < 100; i++) {
                f.log.appendAsLeader(TestBatches.batch(3, "b" + i, i), 0);
            }
            LogSegment active = f.log.segments.lastEntry().getValue();
            assertThat(active.offsetIndex().entries()).isGreaterThan(20);
            for (long o = 0; o < 300; o += 7) {
                List<Map.Entry<Long, String>> got = TestBatches.records(f.log.read(o, 100, Long.MAX_VALUE, true));
                assertThat(got.get(0).getKey()).isEqualTo(o / 3 * 3);
                assertThat(got.get(0).getValue()).isEqualTo(v("b" + o / 3, 0));
            }
            f.restartClean();
            assertThat(f.log.logEndOffset()).isEqualTo(300);
            assertThat(TestBatches.records(f.log.read(151, 100, Long.MAX_VALUE, true)).get(0).getKey()).isEqualTo(150);
        }
    }

    @Test
    void truncationRemovesTheTailAndEpochs() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, "600"))) {
            for (int epoch = 1; epoch <= 5; epoch++) {
                for (int i = 0; i < 3; i++) {
                    f.log.appendAsLeader(TestBatches.batch(2, "e" + epoch + "-" + i, epoch), epoch);
                }
            }
            assertThat(f.log.logEndOffset()).isEqualTo(30);
            assertThat(f.log.latestEpoch()).isEqualTo(5);
            assertThat(f.log.endOffsetForEpoch(2)).contains(new EpochEndOffset(2, 12));
            assertThat(f.log.endOffsetForEpoch(5)).contains(new EpochEndOffset(5, 30));
            int segmentsBefore = f.log.numberOfSegments();
            f.log.truncateTo(14);
            assertThat(f.log.logEndOffset()).isEqualTo(14);
            assertThat(f.log.latestEpoch()).isEqualTo(3);
            assertThat(f.log.numberOfSegments()).isLessThan(segmentsBefore);
            assertThat(TestBatches.records(f.log.read(12, 1 << 20, Long.MAX_VALUE, false))).extracting(Map.Entry::getKey)
                .containsExactly(12L, 13L);
            LogAppendInfo again = f.log.appendAsLeader(TestBatches.batch(1, "new", 1), 6);
            assertThat(again.firstOffset()).isEqualTo(14);
            assertThat(f.log.endOffsetForEpoch(3)).contains(new EpochEndOffset(3, 14));
            f.restartUnclean(0);
            assertThat(f.log.logEndOffset()).isEqualTo(15);
            assertThat(f.log.latestEpoch()).isEqualTo(6);

            f.log.truncateFullyAndStartAt(100);
            assertThat(f.log.logStartOffset()).isEqualTo(100);
            assertThat(f.log.logEndOffset()).isEqualTo(100);
            assertThat(f.log.latestEpoch()).isEqualTo(-1);
            assertThat(f.log.appendAsLeader(TestBatches.batch(1, "x", 1), 7).firstOffset()).isEqualTo(100);
            f.restartClean();
            assertThat(f.log.logStartOffset()).isEqualTo(100);
            assertThat(f.log.logEndOffset()).isEqualTo(101);
        }
    }

    /**
     * A leader records its epoch's start offset when it is elected, before it appends anything. If it loses the
     * leadership first, its cache ends with an epoch that has no records, which the new leader (of a later epoch) never
     * had: the new leader answers a fetch naming that epoch with a divergence whose truncation point is this log's end.
     * Truncating to the log end must still drop that epoch (as Kafka's {@code UnifiedLog.truncateTo} does), or the
     * follower names it again on its next fetch and never catches up (the fault campaign's power loss of every node
     * left a follower in that loop).
     */
    @Test
    void truncatingToTheLogEndDropsAnEpochThatHasNoRecords() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            f.log.appendAsLeader(TestBatches.batch(10, "e0", 1), 0);
            assertThat(f.log.assignEpochStartOffset(1)).isEqualTo(10);
            assertThat(f.log.latestEpoch()).isEqualTo(1);
            f.log.truncateTo(10);
            assertThat(f.log.latestEpoch()).as("the epoch without records is gone").isZero();
            assertThat(f.log.endOffsetForEpoch(0)).contains(new EpochEndOffset(0, 10));
            assertThat(f.log.logEndOffset()).isEqualTo(10);
            f.restartClean();
            assertThat(f.log.latestEpoch()).as("and stays gone after a restart").isZero();
            f.log.truncateTo(50);
            assertThat(f.log.logEndOffset()).as("a truncation past the end changes nothing").isEqualTo(10);
            assertThat(f.log.latestEpoch()).isZero();
        }
    }

    /**
     * A restart reads only the active segment's tail (and the recovered ones): a truncation that removes whole
     * segments makes an older, unread segment the last one, and the log end must then be that segment's real end.
     */
    @Test
    void truncatingBackIntoASegmentTheRestartDidNotReadKeepsItsBatches() throws Exception {
        for (boolean clean : new boolean[] {true, false}) {
            Path dir = Files.createDirectory(tmp.resolve("clean-" + clean));
            try (LogFixture f = new LogFixture(dir, Map.of(LogConfig.SEGMENT_BYTES, "300"))) {
                for (int i = 0; i < 8; i++) {
                    f.log.appendAsLeader(TestBatches.batch(2, "r" + i, i), 1);
                }
                List<Long> bases = List.copyOf(f.log.segments.keySet());
                assertThat(bases).hasSizeGreaterThan(2);
                if (clean) {
                    f.restartClean();
                } else {
                    f.log.flush();
                    f.restartUnclean(f.log.recoveryPoint()); // the segments below the recovery point are trusted, not read
                }
                long cut = bases.get(2);
                f.log.truncateTo(cut);
                assertThat(f.log.logEndOffset()).as("clean %s", clean).isEqualTo(cut);
                assertThat(LogCrashRecoveryTest.readAll(f.log)).as("clean %s", clean).hasSize((int) cut);
                assertThat(f.log.appendAsLeader(TestBatches.batch(1, "after", 1), 2).firstOffset()).isEqualTo(cut);
                f.restartUnclean(0);
                assertThat(f.log.logEndOffset()).isEqualTo(cut + 1);
            }
        }
    }

    @Test
    void followerKeepsOffsetsAndLearnsEpochs() throws Exception {
        try (LogFixture leader = new LogFixture(tmp.resolve("l"), Map.of());
             LogFixture follower = new LogFixture(tmp.resolve("f"), Map.of())) {
            leader.log.appendAsLeader(TestBatches.batch(2, "a", 1), 3);
            leader.log.appendAsLeader(TestBatches.batch(2, "b", 1), 4);
            ByteBuffer fetched = leader.log.read(0, 1 << 20, Long.MAX_VALUE, false).readIntoBuffer();
            LogAppendInfo info = follower.log.appendAsFollower(fetched, 0);
            assertThat(info.firstOffset()).isZero();
            assertThat(info.lastOffset()).isEqualTo(3);
            assertThat(follower.log.latestEpoch()).isEqualTo(4);
            assertThat(follower.log.endOffsetForEpoch(3)).contains(new EpochEndOffset(3, 2));
            ByteBuffer again = leader.log.read(0, 1 << 20, Long.MAX_VALUE, false).readIntoBuffer();
            assertCode(() -> follower.log.appendAsFollower(again, 0), ErrorCode.INVALID_RECORD);
            assertThat(Records.validBytes(follower.log.read(0, 1 << 20, Long.MAX_VALUE, false).readIntoBuffer()))
                .isEqualTo(fetched.limit());
        }
    }

    @Test
    void followerTakesOnlyTheAnswerToAFetchFromItsLogEnd() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            f.log.appendAsFollower(TestBatches.batch(3, "a", 1), 0);
            ByteBuffer stale = TestBatches.batch(2, "c", 1);
            RecordBatch.view(stale, 0).setBaseOffset(8);
            assertThatThrownBy(() -> f.log.appendAsFollower(stale, 8)).isInstanceOf(LogException.class)
                .hasMessageContaining("fetched from offset 8 cannot be appended at the log end offset 3 (they would leave a gap)");
            assertCode(() -> f.log.appendAsFollower(TestBatches.batch(1, "d", 1), 0), ErrorCode.INVALID_RECORD);
            assertThat(f.log.logEndOffset()).isEqualTo(3);

            // Fetched from the log end, the leader's next batch may start later: compaction removed offsets 3-4.
            ByteBuffer compacted = TestBatches.batch(2, "b", 1);
            RecordBatch.view(compacted, 0).setBaseOffset(5);
            f.log.appendAsFollower(compacted, 3);
            assertThat(f.log.logEndOffset()).isEqualTo(7);
        }
    }

    @Test
    void logAppendTimeTopicsStampTheBrokerClock() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.MESSAGE_TIMESTAMP_TYPE, "LogAppendTime"))) {
            LogAppendInfo info = f.log.appendAsLeader(TestBatches.batch(2, "a", 5), 0);
            assertThat(info.logAppendTimeMs()).isEqualTo(f.time.milliseconds());
            RecordBatch stored = RecordBatch.view(f.log.read(0, 1 << 20, Long.MAX_VALUE, false).readIntoBuffer(), 0);
            assertThat(stored.isValid()).isTrue();
            assertThat(stored.maxTimestamp()).isEqualTo(f.time.milliseconds());
            stored.records().forEach(r -> assertThat(r.timestamp()).isEqualTo(f.time.milliseconds()));
        }
    }

    /**
     * A log holds one descriptor per segment (its .log), not three: the indexes are read through their mappings and
     * open their files only while written or resized. Before, every segment's two indexes kept their files open, so
     * a broker needed three times Kafka's descriptors (10,000 partitions of one segment: 31,500 on one node, past this
     * machine's limit of 20,000).
     */
    @Test
    void aLogHoldsOneDescriptorPerSegmentWrittenOrNot() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, "500", LogConfig.INDEX_INTERVAL_BYTES, "100"))) {
            assertThat(descriptorsInto(f.dir)).as("a new, empty log").containsExactly("00000000000000000000.log");
            for (int i = 0; i < 30; i++) {
                f.log.appendAsLeader(TestBatches.batch(2, "t" + i, 1000L + i * 10), 0);
            }
            int segments = f.log.segments.size();
            assertThat(segments).isGreaterThan(3);
            f.awaitScheduledWork(); // a roll's flush on the scheduler opens partition.metadata for its fsync
            List<String> open = descriptorsInto(f.dir);
            assertThat(open).filteredOn(n -> n.endsWith(".log")).hasSize(segments);
            assertThat(open).as("only the active segment's indexes, being written").hasSize(segments + 2);
            f.restartClean();
            assertThat(descriptorsInto(f.dir)).as("after a restart").hasSize(segments)
                .allMatch(n -> n.endsWith(".log"));
            assertThat(f.log.offsetForTimestamp(1105)).contains(new TimestampOffset(1110, 22));
            f.log.appendAsLeader(TestBatches.batch(2, "after", 2000L), 0);
            assertThat(f.log.offsetForTimestamp(2000)).isPresent();
        }
    }

    /**
     * A flush works on segments listed under the log's lock, outside it (a roll's flush runs on the scheduler); a
     * segment deleted meanwhile (retention, truncation) has nothing left to flush. Its closed channel took the whole
     * log offline before ({@code LogModelTest} found it in a full suite: "I/O error during flush; the log goes
     * offline", ClosedChannelException from a roll's flush).
     */
    @Test
    void aFlushOfSegmentsDeletedMeanwhileLeavesTheLogOnline() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, "500"))) {
            for (int i = 0; i < 20; i++) {
                f.log.appendAsLeader(TestBatches.batch(2, "t" + i, 1000L + i * 10), 0);
            }
            List<LogSegment> listed = new java.util.ArrayList<>(f.log.segments.values());
            assertThat(listed).hasSizeGreaterThan(2);
            f.log.truncateFullyAndStartAt(5000);
            f.log.flushSegments(listed);
            f.log.appendAsLeader(TestBatches.batch(2, "after", 2000L), 0);
            f.log.flushUpTo(f.log.logEndOffset());
            assertThat(f.log.logEndOffset()).isEqualTo(5002);
        }
    }

    /** The names of the files in {@code dir} this process holds open (Linux: /proc/self/fd). */
    private static List<String> descriptorsInto(Path dir) throws IOException {
        List<String> out = new java.util.ArrayList<>();
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    if (dir.equals(target.getParent())) {
                        out.add(target.getFileName().toString());
                    }
                } catch (IOException gone) {
                    // closed between the listing and the read (another thread's descriptor)
                }
            }
        }
        java.util.Collections.sort(out);
        return out;
    }

    @Test
    void findsOffsetsByTimestamp() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, "500", LogConfig.INDEX_INTERVAL_BYTES, "100"))) {
            for (int i = 0; i < 30; i++) {
                f.log.appendAsLeader(TestBatches.batch(2, "t" + i, 1000L + i * 10), 0);
            }
            assertThat(f.log.offsetForTimestamp(0)).contains(new TimestampOffset(1000, 0));
            assertThat(f.log.offsetForTimestamp(1105)).contains(new TimestampOffset(1110, 22));
            assertThat(f.log.offsetForTimestamp(1290)).contains(new TimestampOffset(1290, 58));
            assertThat(f.log.offsetForTimestamp(1291)).isEmpty();
        }
    }

    @Test
    void retentionByTimeAndSizeDeletesOldSegmentsBelowTheHighWatermark() throws Exception {
        Map<String, String> cfg = Map.of(LogConfig.SEGMENT_BYTES, "500", LogConfig.RETENTION_MS, "10000");
        try (LogFixture f = new LogFixture(tmp, cfg)) {
            for (int i = 0; i < 20; i++) {
                f.log.appendAsLeader(TestBatches.sized(1, 150, f.time.milliseconds()), 0);
                f.time.advance(1000);
            }
            int segments = f.log.numberOfSegments();
            assertThat(f.log.deleteOldSegments()).as("nothing below the high watermark").isZero();
            f.log.updateHighWatermark(f.log.logEndOffset());
            assertThat(f.log.deleteOldSegments()).isPositive();
            assertThat(f.log.logStartOffset()).isPositive();
            assertThat(f.log.numberOfSegments()).isLessThan(segments);
            // everything left is younger than 10 s (the active segment is never deleted)
            long start = f.log.logStartOffset();
            assertThat(start).isGreaterThanOrEqualTo(20 - 11);
            assertCode(() -> f.log.read(0, 100, Long.MAX_VALUE, true), ErrorCode.OFFSET_OUT_OF_RANGE);
            assertThat(TestBatches.records(f.log.read(start, 100, Long.MAX_VALUE, true)).get(0).getKey()).isEqualTo(start);

            f.time.advance(1_000_000);
            f.log.deleteOldSegments();
            assertThat(f.log.numberOfSegments()).isEqualTo(1);
            assertThat(f.log.logEndOffset()).isEqualTo(20);
            assertThat(Files.list(f.dir).filter(p -> p.toString().endsWith(".log")).count()).isEqualTo(1);

            f.log.updateConfig(f.config().with(Map.of(LogConfig.RETENTION_MS, "-1", LogConfig.RETENTION_BYTES, "1000")));
            for (int i = 0; i < 20; i++) {
                f.log.appendAsLeader(TestBatches.sized(1, 150, f.time.milliseconds()), 0);
            }
            f.log.updateHighWatermark(f.log.logEndOffset());
            f.log.deleteOldSegments();
            long activeSize = f.log.segments.lastEntry().getValue().size();
            assertThat(f.log.size() - activeSize).isLessThanOrEqualTo(1000);
            assertThat(f.log.size()).isGreaterThan(1000 - 500);
        }
    }

    @Test
    void deletingRecordsMovesTheLogStartOffsetWithinASegmentUpToTheHighWatermarkOnly() throws Exception {
        Map<String, String> cfg = Map.of(LogConfig.SEGMENT_BYTES, "500");
        try (LogFixture f = new LogFixture(tmp, cfg)) {
            for (int i = 0; i < 10; i++) {
                f.log.appendAsLeader(TestBatches.sized(1, 150, f.time.milliseconds()), 0);
            }
            f.log.updateHighWatermark(8);
            int segments = f.log.numberOfSegments();
            assertThat(segments).as("several segments").isGreaterThan(2);
            // above the high watermark: refused, nothing moves
            assertCode(() -> f.log.maybeIncrementLogStartOffset(9), ErrorCode.OFFSET_OUT_OF_RANGE);
            assertThat(f.log.logStartOffset()).isZero();

            assertThat(f.log.maybeIncrementLogStartOffset(5)).isEqualTo(5);
            assertThat(f.log.logStartOffset()).isEqualTo(5);
            // below the current start: a no-op that answers the start
            assertThat(f.log.maybeIncrementLogStartOffset(3)).isEqualTo(5);
            assertThat(f.log.logStartOffset()).isEqualTo(5);
            // reads below the start are out of range, as after retention; from the start they return offset 5 first
            assertCode(() -> f.log.read(4, 1000, Long.MAX_VALUE, true), ErrorCode.OFFSET_OUT_OF_RANGE);
            assertThat(TestBatches.records(f.log.read(5, 1000, Long.MAX_VALUE, true)).get(0).getKey()).isEqualTo(5);

            // retention removes the segments wholly below the start, even with retention itself off
            f.log.updateConfig(f.config().with(Map.of(LogConfig.RETENTION_MS, "-1", LogConfig.CLEANUP_POLICY, "compact")));
            assertThat(f.log.deleteOldSegments()).isPositive();
            assertThat(f.log.numberOfSegments()).isLessThan(segments);
            assertThat(f.log.segments.firstKey()).isLessThanOrEqualTo(5);
            assertThat(f.log.logStartOffset()).as("the start stays where it was asked").isEqualTo(5);
            assertThat(f.log.maybeIncrementLogStartOffset(8)).isEqualTo(8);
            assertCode(() -> f.log.read(7, 1000, Long.MAX_VALUE, true), ErrorCode.OFFSET_OUT_OF_RANGE);
        }
    }

    @Test
    void flushPolicyMovesTheRecoveryPoint() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.FLUSH_MESSAGES, "5"))) {
            f.log.appendAsLeader(TestBatches.batch(3, "a", 1), 0);
            assertThat(f.log.recoveryPoint()).isZero();
            f.log.appendAsLeader(TestBatches.batch(3, "b", 1), 0);
            assertThat(f.log.recoveryPoint()).isEqualTo(6);
        }
        try (LogFixture f = new LogFixture(tmp.resolve("ms"), Map.of(LogConfig.FLUSH_MS, "1000"))) {
            f.log.appendAsLeader(TestBatches.batch(3, "a", 1), 0);
            f.log.flushIfDue();
            assertThat(f.log.recoveryPoint()).isZero();
            f.time.advance(1000);
            f.log.flushIfDue();
            assertThat(f.log.recoveryPoint()).isEqualTo(3);
        }
    }

    /**
     * Issue 20, defect 7: a flush that covers offsets in a segment created since the directory was last fsynced
     * makes the directory entry durable too (Kafka fsyncs the parent directory after a roll). Before the fix only the
     * segment files were fsynced, so with flush.messages=1 an acknowledged record in a new segment could vanish with
     * its file's directory entry on power loss.
     */
    @Test
    void aFlushAfterARollFsyncsTheDirectoryOnce() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.FLUSH_MESSAGES, "1"))) {
            f.log.appendAsLeader(TestBatches.batch(2, "a", 1), 0);
            f.log.flush();
            long before = f.log.directorySyncs();
            f.log.roll();
            f.log.appendAsLeader(TestBatches.batch(2, "b", 1), 0);
            assertThat(f.log.recoveryPoint()).as("flush.messages=1 flushed the append").isEqualTo(4);
            assertThat(f.log.directorySyncs()).as("the new segment's directory entry was fsynced").isEqualTo(before + 1);
            f.log.appendAsLeader(TestBatches.batch(2, "c", 1), 0);
            assertThat(f.log.directorySyncs()).as("no new file since: no further directory fsync").isEqualTo(before + 1);
        }
    }

    @Test
    void missingOrCorruptIndexIsRebuilt() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.INDEX_INTERVAL_BYTES, "100", LogConfig.SEGMENT_BYTES, "2000"))) {
            for (int i = 0; i < 40; i++) {
                f.log.appendAsLeader(TestBatches.batch(2, "i" + i, i), 0);
            }
            f.restartClean();
            f.log.close();
            Files.delete(f.dir.resolve("00000000000000000000.index"));
            Files.write(f.dir.resolve(LogSegment.fileName(f.log.segments.higherKey(0L), ".index")), new byte[] {1, 2, 3});
            f.log = f.open(f.log.recoveryPoint(), true);
            for (long o = 0; o < 80; o += 3) {
                assertThat(TestBatches.records(f.log.read(o, 10, Long.MAX_VALUE, true)).get(0).getKey()).isEqualTo(o / 2 * 2);
            }
            assertThat(f.log.segments.firstEntry().getValue().offsetIndex().entries()).isPositive();
        }
    }

    @Test
    void partitionMetadataKeepsTheTopicId() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            assertThat(Files.readString(f.dir.resolve("partition.metadata"))).startsWith("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA");
            f.log.close();
            byte[] other = new byte[16];
            other[0] = 1;
            assertThatThrownBy(() -> Log.open(f.dir, "t", 0, other, f.config(), 0, true, f.time, f.scheduler, (l, e) -> { }))
                .isInstanceOf(IOException.class).hasMessageContaining("topic id");
            f.log = f.open(0, true);
        }
    }
}
