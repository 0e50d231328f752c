package io.raftline.bench;

import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogConfig;
import io.raftline.record.CompressionType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The same work as {@code dd if=/dev/zero of=F bs=256k count=4096}: 1 GiB appended to a fresh log as 4096 batches of
 * 256 KiB (1 KiB records), timed as one shot. MB/s = 1024 / seconds. Without {@code flushAtEnd} nothing is
 * fsynced (like dd without conv=fdatasync); with it, one flush at the end (like conv=fdatasync).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class LogAppendGigabyteBenchmark {

    private static final int BATCHES = 4096;

    @Param({"false", "true"})
    public boolean flushAtEnd;

    /** Heap batches make the JDK copy each write into a temporary direct buffer; network buffers are usually direct. */
    @Param({"false", "true"})
    public boolean directBuffer;

    private Path root;
    private ScheduledExecutorService scheduler;
    private Log log;
    private ByteBuffer batch;

    @Setup(Level.Iteration)
    public void setUp() throws IOException {
        root = BenchLogs.baseDir().resolve("gigabyte");
        scheduler = Executors.newSingleThreadScheduledExecutor();
        log = BenchLogs.open(root, scheduler, Map.of(LogConfig.FILE_DELETE_DELAY_MS, "0", LogConfig.MAX_MESSAGE_BYTES, "1048576",
            LogConfig.SEGMENT_BYTES, Integer.toString(Integer.MAX_VALUE)));
        ByteBuffer heap = BenchLogs.batch(256 * 1024 + 4096, CompressionType.NONE, 42);
        batch = directBuffer ? ByteBuffer.allocateDirect(heap.limit()).put(heap).flip() : heap;
    }

    @TearDown(Level.Iteration)
    public void tearDown() throws IOException {
        log.close();
        scheduler.shutdownNow();
        BenchLogs.deleteTree(root);
    }

    @Benchmark
    public long appendOneGibibyte() {
        for (int i = 0; i < BATCHES; i++) {
            log.appendAsLeader(batch.duplicate(), 1);
        }
        if (flushAtEnd) {
            log.flush();
        }
        return log.logEndOffset();
    }
}
