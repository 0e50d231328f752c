package io.raftline.bench;

import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogAppendInfo;
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
 * Leader appends of 1 KiB records in 16 KiB and 256 KiB batches, with and without an fsync per batch
 * ({@code flush.messages=1}). Each call validates the batch (CRC, record walk), stamps offsets and epoch, and writes.
 * MB/s = ops/s × batch bytes. The log is emptied after every iteration so the disk does not fill.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LogAppendBenchmark {

    @Param({"16384", "262144"})
    public int batchBytes;

    @Param({"false", "true"})
    public boolean flushEachBatch;

    private Path root;
    private ScheduledExecutorService scheduler;
    private Log log;
    private ByteBuffer batch;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        root = BenchLogs.baseDir().resolve("append");
        scheduler = Executors.newSingleThreadScheduledExecutor();
        log = BenchLogs.open(root, scheduler, Map.of(LogConfig.FLUSH_MESSAGES, flushEachBatch ? "1" : Long.toString(Long.MAX_VALUE),
            LogConfig.FILE_DELETE_DELAY_MS, "0", LogConfig.MAX_MESSAGE_BYTES, "1048576"));
        batch = BenchLogs.batch(batchBytes, CompressionType.NONE, 42);
        System.out.println("\nbatch bytes " + batch.limit());
    }

    @TearDown(Level.Iteration)
    public void empty() {
        log.truncateFullyAndStartAt(0);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        log.close();
        scheduler.shutdownNow();
        BenchLogs.deleteTree(root);
    }

    @Benchmark
    public LogAppendInfo append() {
        return log.appendAsLeader(batch.duplicate(), 1);
    }
}
