package io.raftline.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;

import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;

/**
 * Crash tests: a log is written, its files are cut at a random byte or have a random byte flipped, and after an
 * unclean restart the log must hold exactly the whole valid batches before the damage and nothing after it.
 * Flips skip the base offset and leader epoch fields: they are outside the CRC by design (stamped in place).
 */
class LogCrashRecoveryTest {

    /** A stored batch: which segment, where, and its records (offset → value). */
    record Stored(long segmentBase, int position, int size, List<Map.Entry<Long, String>> records) {
    }

    /** The damage done to the files: flip a byte (with xor) or cut the file, at the byte where % (bytes written). */
    record Damage(boolean flip, int where, int xor) {
    }

    /** 60 examples from a fixed seed; each example writes, damages and reopens a log in a fresh directory. */
    @Test
    void recoveryKeepsTheValidPrefixAndNothingAfter() {
        Gen<Damage> damage = booleans().all().zip(integers().between(0, Integer.MAX_VALUE - 1), integers().between(1, 255), Damage::new);
        qt().withFixedSeed(31337L).withExamples(60).withShrinkCycles(300)
            .forAll(integers().between(1, 40), integers().between(300, 3000), damage)
            .checkAssert((batchCount, segmentBytes, d) -> LogFixture.inFreshDirectory("crash",
                root -> recoveryKeepsTheValidPrefixAndNothingAfter(root, batchCount, segmentBytes, d.flip(), d.where(), d.xor())));
    }

    private static void recoveryKeepsTheValidPrefixAndNothingAfter(Path root, int batchCount, int segmentBytes, boolean flip,
                                                                   int where, int xor) throws Exception {
        try (LogFixture f = new LogFixture(root, Map.of(LogConfig.SEGMENT_BYTES, Integer.toString(segmentBytes),
            LogConfig.INDEX_INTERVAL_BYTES, "150"))) {
            for (int i = 0; i < batchCount; i++) {
                f.log.appendAsLeader(TestBatches.batch(1 + (i * 7 + where % 4) % 4, "b" + i + "x".repeat((i * 13) % 90), i), i / 5);
            }
            f.log.close();
            List<Stored> stored = layout(f.dir);
            int total = stored.stream().mapToInt(Stored::size).sum();
            Stored hit = null;
            long target = where % total;
            for (Stored s : stored) {
                if (target < s.size()) {
                    hit = s;
                    break;
                }
                target -= s.size();
            }
            int inBatch = (int) target;
            Path file = f.dir.resolve(LogSegment.fileName(hit.segmentBase(), ".log"));
            boolean boundaryCut = false;
            if (flip) {
                if (inBatch < RecordBatch.LENGTH_OFFSET
                    || (inBatch >= RecordBatch.PARTITION_LEADER_EPOCH_OFFSET && inBatch < RecordBatch.MAGIC_OFFSET)) {
                    inBatch = RecordBatch.CRC_OFFSET + inBatch % 4; // outside the CRC by design: damage the CRC instead
                }
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                    raf.seek(hit.position() + inBatch);
                    int b = raf.read();
                    raf.seek(hit.position() + inBatch);
                    raf.write(b ^ xor);
                }
            } else {
                boundaryCut = inBatch == 0;
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                    raf.setLength(hit.position() + inBatch);
                }
            }

            f.log = f.open(0, false);

            List<Map.Entry<Long, String>> expected = new ArrayList<>();
            for (Stored s : stored) {
                if (s == hit) {
                    break;
                }
                expected.addAll(s.records());
            }
            if (boundaryCut) {
                // a cut exactly between two batches looks like a shorter segment: later segments survive
                for (Stored s : stored) {
                    if (s.segmentBase() > hit.segmentBase()) {
                        expected.addAll(s.records());
                    }
                }
            }
            assertThat(readAll(f.log)).isEqualTo(expected);
            long expectedEnd = expected.isEmpty() ? 0 : expected.get(expected.size() - 1).getKey() + 1;
            assertThat(f.log.logEndOffset()).isEqualTo(expectedEnd);
            assertThat(f.log.recoveryPoint()).isEqualTo(expectedEnd);
            assertThat(f.log.latestEpoch()).isLessThanOrEqualTo(expected.isEmpty() ? -1 : (batchCount - 1) / 5);

            // the log is usable: appends continue at the end, and a clean restart keeps it all
            f.log.appendAsLeader(TestBatches.batch(1, "after", 1), 99);
            expected.add(Map.entry(expectedEnd, "v-after-0"));
            f.restartClean();
            assertThat(readAll(f.log)).isEqualTo(expected);
        }
    }

    @TempDir
    Path tmp;

    @Test
    void segmentsBeforeTheRecoveryPointAreNotRead() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, "500"))) {
            for (int i = 0; i < 20; i++) {
                f.log.appendAsLeader(TestBatches.batch(2, "r" + i, i), 0);
            }
            f.log.flush();
            long rp = f.log.recoveryPoint();
            f.log.appendAsLeader(TestBatches.batch(2, "tail", 1), 0);
            f.log.close();
            // damage a record inside the first segment, which is below the recovery point
            Path first = f.dir.resolve(LogSegment.fileName(0, ".log"));
            try (RandomAccessFile raf = new RandomAccessFile(first.toFile(), "rw")) {
                raf.seek(RecordBatch.RECORDS_OFFSET + 5);
                raf.write(0x55);
            }
            // tear the tail of the last segment
            Path last;
            try (Stream<Path> s = Files.list(f.dir)) {
                last = s.filter(p -> p.toString().endsWith(".log")).max(Comparator.naturalOrder()).orElseThrow();
            }
            try (RandomAccessFile raf = new RandomAccessFile(last.toFile(), "rw")) {
                raf.setLength(raf.length() - 3);
            }
            f.log = f.open(rp, false);
            // the first segment was trusted (not read), the torn tail was cut
            assertThat(f.log.logEndOffset()).isEqualTo(40);
            assertThat(f.log.segments.firstEntry().getValue().size()).isPositive();
        }
    }

    static List<Map.Entry<Long, String>> readAll(Log log) {
        List<Map.Entry<Long, String>> out = new ArrayList<>();
        long offset = log.logStartOffset();
        while (offset < log.logEndOffset()) {
            FetchDataInfo info = log.read(offset, 1 << 20, Long.MAX_VALUE, true);
            List<Map.Entry<Long, String>> got = TestBatches.records(info);
            if (got.isEmpty()) {
                break;
            }
            out.addAll(got);
            offset = got.get(got.size() - 1).getKey() + 1;
        }
        return out;
    }

    private static List<Stored> layout(Path dir) throws IOException {
        List<Path> logs;
        try (Stream<Path> s = Files.list(dir)) {
            logs = s.filter(p -> p.toString().endsWith(".log")).sorted().toList();
        }
        List<Stored> out = new ArrayList<>();
        for (Path p : logs) {
            long base = Long.parseLong(p.getFileName().toString().substring(0, 20));
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(p));
            for (RecordBatch b : Records.batches(bytes)) {
                List<Map.Entry<Long, String>> records = new ArrayList<>();
                for (Record r : b.records()) {
                    records.add(Map.entry(r.offset(), StandardCharsets.UTF_8.decode(r.value()).toString()));
                }
                out.add(new Stored(base, b.position(), b.sizeInBytes(), records));
            }
        }
        return out;
    }
}
