package io.raftline.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction keeps the latest record per key, keeps offsets, and drops tombstones after delete.retention.ms. */
class LogCleanerTest {

    @TempDir
    Path tmp;

    /** Key → (offset, value or null) of every record readable from the log. */
    private static Map<String, Map.Entry<Long, String>> contents(Log log) {
        Map<String, Map.Entry<Long, String>> out = new LinkedHashMap<>();
        long offset = log.logStartOffset();
        while (offset < log.logEndOffset()) {
            ByteBuffer buf = log.read(offset, 1 << 20, Long.MAX_VALUE, true).readIntoBuffer();
            long next = offset;
            for (RecordBatch b : Records.batches(buf)) {
                assertThat(b.isValid()).isTrue();
                for (Record r : b.records()) {
                    String key = StandardCharsets.UTF_8.decode(r.key()).toString();
                    String value = r.hasValue() ? StandardCharsets.UTF_8.decode(r.value()).toString() : null;
                    out.remove(key);
                    out.put(key, new java.util.AbstractMap.SimpleEntry<>(r.offset(), value));
                }
                next = b.lastOffset() + 1;
            }
            if (next == offset) {
                break;
            }
            offset = next;
        }
        return out;
    }

    @Test
    void keepsTheLatestValuePerKeyAndHonoursTombstones() throws Exception {
        Map<String, String> cfg = Map.of(LogConfig.CLEANUP_POLICY, "compact", LogConfig.SEGMENT_BYTES, "400",
            LogConfig.DELETE_RETENTION_MS, "100000", LogConfig.MIN_CLEANABLE_DIRTY_RATIO, "0.01");
        try (LogFixture f = new LogFixture(tmp, cfg)) {
            LogCleaner cleaner = new LogCleaner(f.time);
            long t = f.time.milliseconds();
            for (int round = 0; round < 10; round++) {
                f.log.appendAsLeader(TestBatches.keyed(t, "a", "a" + round, "b", "b" + round, "c", "c" + round), 0);
            }
            f.log.appendAsLeader(TestBatches.keyed(t, "b", null), 0);
            f.log.appendAsLeader(TestBatches.keyed(t, "d", "d0"), 0);
            f.log.roll();
            f.log.appendAsLeader(TestBatches.keyed(t, "e", "e0"), 0);
            Map<String, Map.Entry<Long, String>> before = contents(f.log);
            long sizeBefore = f.log.size();

            assertThat(cleaner.clean(f.log).segmentsCleaned()).as("nothing below the high watermark yet").isZero();
            f.log.updateHighWatermark(f.log.logEndOffset());
            LogCleaner.CleanResult result = cleaner.clean(f.log);
            assertThat(result.segmentsCleaned()).isPositive();
            assertThat(f.log.size()).isLessThan(sizeBefore);
            // same latest value at the same offset for every key; the tombstone is still there
            assertThat(contents(f.log)).isEqualTo(before);
            assertThat(contents(f.log).get("b").getValue()).isNull();
            assertThat(f.log.logStartOffset()).isZero();
            assertThat(f.log.logEndOffset()).isEqualTo(33);

            // appends continue meanwhile, and a restart (with recovery) sees the cleaned segments
            f.log.appendAsLeader(TestBatches.keyed(t, "a", "a-new"), 0);
            f.restartUnclean(0);
            assertThat(contents(f.log).get("a")).isEqualTo(new java.util.AbstractMap.SimpleEntry<>(33L, "a-new"));

            // after delete.retention.ms the tombstone goes too
            f.time.advance(100_001);
            f.log.roll();
            f.log.appendAsLeader(TestBatches.keyed(f.time.milliseconds(), "f", "f0"), 0);
            f.log.updateHighWatermark(f.log.logEndOffset());
            cleaner.clean(f.log);
            assertThat(contents(f.log)).doesNotContainKey("b").containsKeys("a", "c", "d", "e", "f");
            assertThat(contents(f.log).get("a").getValue()).isEqualTo("a-new");
        }
    }

    @Test
    void aKeyMapSmallerThanTheDirtyRangeCleansInSeveralPassesToTheSameResult() throws Exception {
        Map<String, String> cfg = Map.of(LogConfig.CLEANUP_POLICY, "compact", LogConfig.SEGMENT_BYTES, "400",
            LogConfig.DELETE_RETENTION_MS, "100000", LogConfig.MIN_CLEANABLE_DIRTY_RATIO, "0.01");
        long seed = 20261129L;
        System.out.println("seed " + seed);
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        try (LogFixture f = new LogFixture(tmp, cfg)) {
            long t = f.time.milliseconds();
            Map<String, Map.Entry<Long, String>> model = new LinkedHashMap<>();
            for (int i = 0; i < 300; i++) {
                String key = "k" + random.nextInt(40);
                String value = random.nextInt(10) == 0 ? null : "v" + i;
                long offset = f.log.logEndOffset();
                f.log.appendAsLeader(TestBatches.keyed(t, key, value), 0);
                model.remove(key);
                model.put(key, new java.util.AbstractMap.SimpleEntry<>(offset, value));
            }
            f.log.roll();
            f.log.updateHighWatermark(f.log.logEndOffset());
            // room for 10 keys: 40 keys need at least 4 passes
            LogCleaner small = new LogCleaner(f.time, KeyOffsetMap.SLOT_BYTES * 12L);
            LogCleaner.CleanResult result = small.clean(f.log);
            assertThat(result.passes()).isGreaterThanOrEqualTo(4);
            assertThat(result.recordsRemoved()).isEqualTo(300 - model.size());
            assertThat(contents(f.log)).isEqualTo(model);
            // nothing dirty is left: a full-size cleaner finds nothing more to remove
            assertThat(new LogCleaner(f.time).clean(f.log).recordsRemoved()).isZero();
            assertThat(contents(f.log)).isEqualTo(model);
        }
    }

    @Test
    void theKeyMapHoldsAtMostNinetyPercentOfItsSlotsAndKeepsTheLatestOffset() {
        KeyOffsetMap map = new KeyOffsetMap(KeyOffsetMap.SLOT_BYTES * 100L);
        assertThat(map.capacity()).isEqualTo(90);
        for (int i = 0; i < 90; i++) {
            map.put(("key" + i).getBytes(StandardCharsets.UTF_8), i);
        }
        assertThat(map.isFull()).isTrue();
        assertThat(map.canPut("key5".getBytes(StandardCharsets.UTF_8))).as("a mapped key can still move").isTrue();
        assertThat(map.canPut("new".getBytes(StandardCharsets.UTF_8))).isFalse();
        map.put("key5".getBytes(StandardCharsets.UTF_8), 1000);
        assertThat(map.get("key5".getBytes(StandardCharsets.UTF_8))).isEqualTo(1000);
        assertThat(map.get("key6".getBytes(StandardCharsets.UTF_8))).isEqualTo(6);
        assertThat(map.get("absent".getBytes(StandardCharsets.UTF_8))).isEqualTo(-1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> map.put("new".getBytes(StandardCharsets.UTF_8), 1))
            .isInstanceOf(IllegalStateException.class);
        map.clear();
        assertThat(map.size()).isZero();
        assertThat(map.get("key5".getBytes(StandardCharsets.UTF_8))).isEqualTo(-1);
    }

    @Test
    void deletePolicyLogsAreNotCompacted() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, "300"))) {
            for (int i = 0; i < 10; i++) {
                f.log.appendAsLeader(TestBatches.keyed(1, "k", "v" + i), 0);
            }
            f.log.updateHighWatermark(f.log.logEndOffset());
            assertThat(new LogCleaner(f.time).clean(f.log).segmentsCleaned()).isZero();
        }
    }
}
