package io.raftline.bench;

import io.raftline.broker.log.FetchDataInfo;
import io.raftline.broker.log.FileSlice;
import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogConfig;
import io.raftline.record.CompressionType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Reads of a 512 MiB log of 16 KiB batches (in the page cache, as a consumer close to the tail reads):
 * {@code sequentialRead} fetches 1 MiB at a time from the last position into a direct buffer (MB/s = ops/s);
 * {@code offsetLookup} finds the batch of a random offset (sparse index binary search + header scan) and returns
 * its slice without reading it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LogReadBenchmark {

    private static final int FETCH_BYTES = 1 << 20;
    private static final long LOG_BYTES = 512L << 20;

    private Path root;
    private ScheduledExecutorService scheduler;
    private Log log;
    private ByteBuffer target;
    private long nextOffset;
    private SplittableRandom random;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        root = BenchLogs.baseDir().resolve("read");
        scheduler = Executors.newSingleThreadScheduledExecutor();
        log = BenchLogs.open(root, scheduler, Map.of(LogConfig.SEGMENT_BYTES, Integer.toString(128 << 20)));
        ByteBuffer batch = BenchLogs.batch(16384, CompressionType.NONE, 7);
        while (log.size() < LOG_BYTES) {
            log.appendAsLeader(batch.duplicate(), 1);
        }
        target = ByteBuffer.allocateDirect(FETCH_BYTES + (64 << 10));
        random = new SplittableRandom(1);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        log.close();
        scheduler.shutdownNow();
        BenchLogs.deleteTree(root);
    }

    @Benchmark
    public int sequentialRead() throws IOException {
        if (nextOffset >= log.logEndOffset()) {
            nextOffset = 0;
        }
        FetchDataInfo info = log.read(nextOffset, FETCH_BYTES, Long.MAX_VALUE, true);
        target.clear();
        int bytes = 0;
        for (FileSlice s : info.slices()) {
            s.readInto(target);
            bytes += s.size();
        }
        // the next fetch starts after the last whole batch returned: the last batch's last offset + 1
        ByteBuffer last = target.duplicate().flip();
        int pos = 0;
        long lastOffset = nextOffset;
        while (pos < bytes) {
            lastOffset = last.getLong(pos) + last.getInt(pos + 23);
            pos += 12 + last.getInt(pos + 8);
        }
        nextOffset = lastOffset + 1;
        return bytes;
    }

    @Benchmark
    public FetchDataInfo offsetLookup() {
        long offset = random.nextLong(log.logEndOffset());
        return log.read(offset, 1, Long.MAX_VALUE, true);
    }
}
