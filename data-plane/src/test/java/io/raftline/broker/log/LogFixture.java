package io.raftline.broker.log;

import io.raftline.common.ManualTime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** A log in a temp directory with a manual clock; reopened as after a clean stop or a crash. */
final class LogFixture implements AutoCloseable {

    final Path dir;
    final ManualTime time = new ManualTime();
    final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    final Map<String, String> topicConfig = new HashMap<>();
    Log log;
    int storageErrors;

    LogFixture(Path parent, Map<String, String> overrides) throws IOException {
        this.dir = parent.resolve("t-0");
        topicConfig.put(LogConfig.FILE_DELETE_DELAY_MS, "0");
        topicConfig.putAll(overrides);
        log = open(0, false);
    }

    LogConfig config() {
        return LogConfig.fromProperties(Map.of(), topicConfig);
    }

    Log open(long recoveryPoint, boolean clean) throws IOException {
        return Log.open(dir, "t", 0, new byte[16], config(), recoveryPoint, clean, time, scheduler, (l, e) -> storageErrors++);
    }

    /** Closes cleanly (indexes trimmed) and reopens without recovery. */
    void restartClean() throws IOException {
        log.flush();
        long rp = log.recoveryPoint();
        log.close();
        log = open(rp, true);
    }

    /** Closes and reopens as after a crash: recovery from the given point. */
    void restartUnclean(long recoveryPoint) throws IOException {
        log.close();
        log = open(recoveryPoint, false);
    }

    /**
     * Waits until the scheduler has run every task submitted so far (it has one thread, so a task queued now runs
     * after them): a roll's flush runs there and briefly opens partition.metadata and the epoch checkpoint.
     */
    void awaitScheduledWork() throws Exception {
        scheduler.submit(() -> { }).get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        log.close();
        scheduler.shutdownNow();
        scheduler.awaitTermination(5, TimeUnit.SECONDS);
    }

    /** The body of one property example; it may throw. */
    interface Example {
        void run(Path root) throws Exception;
    }

    /**
     * Runs one property example in a fresh temp directory and removes the directory afterwards, so examples never
     * see each other's files. A checked exception fails the example (unchecked, for QuickTheories to report).
     */
    static void inFreshDirectory(String prefix, Example example) {
        Path root;
        try {
            root = Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            example.run(root);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        } finally {
            try (Stream<Path> paths = Files.walk(root)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
