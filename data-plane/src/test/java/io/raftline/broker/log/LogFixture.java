package io.raftline.broker.log;

import io.raftline.common.ManualTime;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

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

    @Override
    public void close() throws InterruptedException {
        log.close();
        scheduler.shutdownNow();
        scheduler.awaitTermination(5, TimeUnit.SECONDS);
    }
}
