package io.raftline.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers racing one writer (with rolls and an index every few batches) only ever see whole, valid batches that
 * lie below the log end offset they observed before reading.
 */
class LogConcurrencyTest {

    @TempDir
    Path tmp;

    @Test
    @Timeout(60)
    void readersNeverSeeAHalfWrittenBatch() throws Exception {
        long seed = 20240601L;
        System.out.println("LogConcurrencyTest seed " + seed);
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, "20000", LogConfig.INDEX_INTERVAL_BYTES, "500"))) {
            AtomicBoolean done = new AtomicBoolean();
            AtomicLong batchesRead = new AtomicLong();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            Thread[] readers = new Thread[2];
            for (int r = 0; r < readers.length; r++) {
                SplittableRandom random = new SplittableRandom(seed + r);
                readers[r] = new Thread(() -> {
                    try {
                        while (!done.get()) {
                            long end = f.log.logEndOffset();
                            if (end == 0) {
                                continue;
                            }
                            long from = random.nextLong(end);
                            ByteBuffer got = f.log.read(from, 1 + random.nextInt(8000), Long.MAX_VALUE, true).readIntoBuffer();
                            assertThat(Records.wholeBatchBytes(got)).isEqualTo(got.limit());
                            long expectedNext = -1;
                            for (RecordBatch b : Records.batches(got)) {
                                b.ensureValid();
                                assertThat(b.lastOffset()).isLessThan(f.log.logEndOffset());
                                if (expectedNext >= 0) {
                                    assertThat(b.baseOffset()).isEqualTo(expectedNext);
                                }
                                expectedNext = b.lastOffset() + 1;
                                batchesRead.incrementAndGet();
                            }
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                });
                readers[r].start();
            }
            SplittableRandom random = new SplittableRandom(seed);
            for (int i = 0; i < 3000 && failures.isEmpty(); i++) {
                f.log.appendAsLeader(TestBatches.sized(1 + random.nextInt(5), random.nextInt(400), i), 0);
            }
            done.set(true);
            for (Thread t : readers) {
                t.join();
            }
            assertThat(failures).isEmpty();
            assertThat(batchesRead.get()).isPositive();
            assertThat(f.log.numberOfSegments()).isGreaterThan(5);
        }
    }
}
