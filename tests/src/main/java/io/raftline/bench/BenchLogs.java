package io.raftline.bench;

import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogConfig;
import io.raftline.common.SystemTime;
import io.raftline.record.CompressionType;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Stream;

/** Shared set-up for the log benchmarks: a log in a temp dir under the working directory, and batches of 1 KiB records. */
final class BenchLogs {

    static final int RECORD_BYTES = 1024;

    private BenchLogs() {
    }

    /** A fresh log in {@code bench.dir} (default: ./target/bench-logs), default configs but a 1 GiB segment. */
    static Log open(Path parent, ScheduledExecutorService scheduler, Map<String, String> overrides) throws IOException {
        Files.createDirectories(parent);
        Path dir = Files.createTempDirectory(parent, "log");
        LogConfig config = LogConfig.fromProperties(Map.of(), overrides);
        return Log.open(dir.resolve("bench-0"), "bench", 0, new byte[16], config, 0, false, SystemTime.INSTANCE, scheduler,
            (log, e) -> {
                throw new IllegalStateException("I/O error in the benchmark log", e);
            });
    }

    static Path baseDir() {
        return Path.of(System.getProperty("bench.dir", "target/bench-logs"));
    }

    /** A batch of 1 KiB records filling about {@code batchBytes}; values half random, half repeated (compressible). */
    static ByteBuffer batch(int batchBytes, CompressionType codec, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int records = Math.max(1, batchBytes / (RECORD_BYTES + 16));
        RecordBatchBuilder b = new RecordBatchBuilder(codec, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1, batchBytes + 1024);
        for (int i = 0; i < records; i++) {
            byte[] value = new byte[RECORD_BYTES];
            for (int j = 0; j < RECORD_BYTES / 2; j++) {
                value[j] = (byte) random.nextInt(256);
            }
            b.append(1_700_000_000_000L + i, null, value, null);
        }
        return b.build();
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
