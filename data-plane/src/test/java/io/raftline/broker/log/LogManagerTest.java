package io.raftline.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.common.ManualTime;
import io.raftline.protocol.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Several log dirs: placement, restart with checkpoints, deletion, and a dir going offline. */
class LogManagerTest {

    @Test
    void theCleanerRunsUnlessTheBrokerTurnsItOff() {
        assertThat(LogManager.Intervals.fromBrokerProperties(Map.of()).cleanerEnabled()).isTrue();
        assertThat(LogManager.Intervals.fromBrokerProperties(Map.of("log.cleaner.enable", "false")).cleanerEnabled()).isFalse();
        assertThat(LogManager.Intervals.fromBrokerProperties(Map.of("log.cleaner.backoff.ms", "500")).cleanerBackoffMs())
            .isEqualTo(500);
    }

    @TempDir
    Path tmp;

    private final ManualTime time = new ManualTime();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final LogConfig config = LogConfig.fromProperties(Map.of(), Map.of(LogConfig.SEGMENT_BYTES, "1000",
        LogConfig.FILE_DELETE_DELAY_MS, "0"));

    @AfterEach
    void stop() throws InterruptedException {
        scheduler.shutdownNow();
        scheduler.awaitTermination(5, TimeUnit.SECONDS);
    }

    private LogManager manager(List<Path> dirs) {
        LogManager m = new LogManager(dirs, config, time, scheduler);
        m.startup();
        return m;
    }

    @Test
    void newLogsGoToTheLeastUsedDirCountingLoadedAndDeletedLogs() throws Exception {
        List<Path> dirs = List.of(tmp.resolve("a"), tmp.resolve("b"), tmp.resolve("c"));
        LogManager m = manager(dirs);
        for (int p = 0; p < 6; p++) {
            m.getOrCreateLog("t", p, new byte[16], config);
        }
        assertThat(logsPerDir(m, dirs)).containsExactly(2L, 2L, 2L);
        // deleting two logs of dir b makes it the least used: the next two logs go there
        List<Log> inB = m.allLogs().stream().filter(l -> l.dir().getParent().endsWith("b")).toList();
        inB.forEach(l -> m.deleteLog(l.topic(), l.partition()));
        m.getOrCreateLog("u", 0, new byte[16], config);
        m.getOrCreateLog("u", 1, new byte[16], config);
        assertThat(logsPerDir(m, dirs)).containsExactly(2L, 2L, 2L);
        m.shutdown();
        // after a restart the loaded logs count: a dir with none gets the new one
        Files.createDirectories(tmp.resolve("d"));
        List<Path> four = List.of(dirs.get(0), dirs.get(1), dirs.get(2), tmp.resolve("d"));
        LogManager again = manager(four);
        assertThat(again.getOrCreateLog("v", 0, new byte[16], config).dir().getParent())
            .isEqualTo(tmp.resolve("d").toAbsolutePath().normalize());
        again.shutdown();
    }

    private static List<Long> logsPerDir(LogManager m, List<Path> dirs) {
        return dirs.stream().map(d -> m.allLogs().stream()
            .filter(l -> l.dir().getParent().equals(d.toAbsolutePath().normalize())).count()).toList();
    }

    @Test
    void spreadsPartitionsAndSurvivesARestart() throws Exception {
        List<Path> dirs = List.of(tmp.resolve("d1"), tmp.resolve("d2"));
        LogManager m = manager(dirs);
        for (int p = 0; p < 4; p++) {
            Log log = m.getOrCreateLog("orders", p, new byte[16], config);
            log.appendAsLeader(TestBatches.batch(p + 1, "p" + p, 1), 2);
        }
        assertThat(Files.list(dirs.get(0)).filter(Files::isDirectory).count()).isEqualTo(2);
        assertThat(Files.list(dirs.get(1)).filter(Files::isDirectory).count()).isEqualTo(2);
        m.checkpointHighWatermarks(Map.of(new TopicPartitionKey("orders", 2), 2L));
        m.shutdown();
        assertThat(dirs.get(0).resolve(LogManager.CLEAN_SHUTDOWN_MARKER)).exists();
        assertThat(Files.readAllLines(dirs.get(0).resolve(LogManager.RECOVERY_POINT_CHECKPOINT)).get(0)).isEqualTo("0");

        LogManager again = manager(dirs);
        assertThat(again.allLogs()).hasSize(4);
        assertThat(dirs.get(0).resolve(LogManager.CLEAN_SHUTDOWN_MARKER)).doesNotExist();
        for (int p = 0; p < 4; p++) {
            Log log = again.getLog("orders", p).orElseThrow();
            assertThat(log.logEndOffset()).isEqualTo(p + 1);
            assertThat(log.latestEpoch()).isEqualTo(2);
            assertThat(log.recoveryPoint()).isEqualTo(p + 1);
        }
        assertThat(again.getLog("orders", 2).orElseThrow().highWatermark()).isEqualTo(2);
        assertThat(again.readHighWatermarks()).containsEntry(new TopicPartitionKey("orders", 2), 2L);
        again.shutdown();
    }

    @Test
    void aLogStartOffsetMovedByDeleteRecordsSurvivesACrashAndACleanRestart() throws Exception {
        List<Path> dirs = List.of(tmp.resolve("d"));
        LogManager m = manager(dirs);
        Log log = m.getOrCreateLog("gone", 0, new byte[16], config);
        for (int i = 0; i < 10; i++) {
            log.appendAsLeader(TestBatches.batch(1, "x" + i, 1), 0);
        }
        m.checkpointHighWatermarks(Map.of(new TopicPartitionKey("gone", 0), 10L));
        assertThat(log.maybeIncrementLogStartOffset(7)).isEqualTo(7);
        assertThat(Files.readAllLines(dirs.get(0).resolve(LogManager.LOG_START_OFFSET_CHECKPOINT))).contains("gone 0 7");
        log.flush();

        // a crash: no shutdown, no periodic checkpoint since; the new start was written before the call returned
        LogManager crashed = manager(dirs);
        Log reopened = crashed.getLog("gone", 0).orElseThrow();
        assertThat(reopened.logStartOffset()).isEqualTo(7);
        assertThatThrownBy(() -> reopened.read(6, 1000, Long.MAX_VALUE, true)).isInstanceOf(LogException.class)
            .extracting(e -> ((LogException) e).code()).isEqualTo(ErrorCode.OFFSET_OUT_OF_RANGE);
        assertThat(TestBatches.records(reopened.read(7, 1000, Long.MAX_VALUE, true)).get(0).getKey()).isEqualTo(7);
        crashed.shutdown();
        m.shutdown();

        LogManager again = manager(dirs);
        assertThat(again.getLog("gone", 0).orElseThrow().logStartOffset()).isEqualTo(7);
        assertThat(again.getLog("gone", 0).orElseThrow().highWatermark()).isEqualTo(10);
        again.shutdown();
    }

    @Test
    void aTopicRecreatedUnderTheSameNameDoesNotTakeTheDeletedLogsStart() throws Exception {
        List<Path> dirs = List.of(tmp.resolve("d"));
        LogManager m = manager(dirs);
        Log old = m.getOrCreateLog("again", 0, new byte[16], config);
        for (int i = 0; i < 10; i++) {
            old.appendAsLeader(TestBatches.batch(1, "old" + i, 1), 0);
        }
        m.checkpointHighWatermarks(Map.of(new TopicPartitionKey("again", 0), 10L));
        old.maybeIncrementLogStartOffset(8);
        m.deleteLog("again", 0);
        Log fresh = m.getOrCreateLog("again", 0, new byte[16], config);
        for (int i = 0; i < 3; i++) {
            fresh.appendAsLeader(TestBatches.batch(1, "new" + i, 1), 0);
        }
        fresh.flush();

        // a crash before any periodic checkpoint: the new log's records from 0 are all there
        LogManager crashed = manager(dirs);
        assertThat(crashed.getLog("again", 0).orElseThrow().logStartOffset()).isZero();
        crashed.shutdown();
        m.shutdown();
    }

    @Test
    void deletingALogRenamesThenRemovesItsDirectory() throws Exception {
        LogManager m = manager(List.of(tmp.resolve("d")));
        Log log = m.getOrCreateLog("gone", 0, new byte[16], config);
        log.appendAsLeader(TestBatches.batch(1, "x", 1), 0);
        m.deleteLog("gone", 0);
        assertThat(m.getLog("gone", 0)).isEmpty();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            try (Stream<Path> s = Files.list(tmp.resolve("d"))) {
                return s.noneMatch(Files::isDirectory);
            }
        });
        assertThatThrownBy(() -> log.appendAsLeader(TestBatches.batch(1, "x", 1), 0)).isInstanceOf(LogException.class);
        m.shutdown();
    }

    @Test
    void anIoErrorTakesTheWholeDirOfflineAndOnlyThatDir() throws Exception {
        List<Path> dirs = List.of(tmp.resolve("bad"), tmp.resolve("good"));
        LogManager m = manager(dirs);
        List<String> offline = new CopyOnWriteArrayList<>();
        m.addListener(offline::add);
        Log a = m.getOrCreateLog("t", 0, new byte[16], config);
        Log b = m.getOrCreateLog("t", 1, new byte[16], config);
        Log a2 = m.getOrCreateLog("t", 2, new byte[16], config);
        assertThat(a.dir().getParent()).isEqualTo(dirs.get(0).toAbsolutePath().normalize());
        assertThat(a2.dir().getParent()).isEqualTo(a.dir().getParent());
        // the disk "fails": the partition directory disappears, so the next roll cannot create its files
        deleteTree(a.dir());
        assertThatThrownBy(() -> {
            for (int i = 0; i < 20; i++) {
                a.appendAsLeader(TestBatches.sized(1, 400, 1), 0);
            }
        }).isInstanceOf(LogException.class).extracting(e -> ((LogException) e).code()).isEqualTo(ErrorCode.STORAGE_ERROR);
        assertThat(offline).containsExactly(dirs.get(0).toAbsolutePath().normalize().toString());
        assertThat(m.offlineDirs()).containsExactly(dirs.get(0).toAbsolutePath().normalize());
        // the other log in that dir refuses writes too; the other dir keeps working, and new logs go there
        assertThatThrownBy(() -> a2.appendAsLeader(TestBatches.batch(1, "x", 1), 0))
            .isInstanceOf(LogException.class).extracting(e -> ((LogException) e).code()).isEqualTo(ErrorCode.STORAGE_ERROR);
        b.appendAsLeader(TestBatches.batch(1, "fine", 1), 0);
        assertThat(m.getOrCreateLog("u", 0, new byte[16], config).dir().getParent()).isEqualTo(dirs.get(1).toAbsolutePath().normalize());
        m.shutdown();
        assertThat(dirs.get(1).resolve(LogManager.CLEAN_SHUTDOWN_MARKER)).exists();
    }

    @Test
    void uncleanRestartRecoversFromTheCheckpointedRecoveryPoint() throws Exception {
        Path d = tmp.resolve("d");
        LogManager m = manager(List.of(d));
        Log log = flushedAndCheckpointed(m);
        log.appendAsLeader(TestBatches.batch(2, "late", 1), 0);
        log.close(); // a crash: no marker, no final checkpoint
        LogManager again = manager(List.of(d));
        Log reopened = again.getLog("t", 0).orElseThrow();
        assertThat(reopened.logEndOffset()).isEqualTo(22);
        assertThat(reopened.recoveryPoint()).isEqualTo(22);
        again.shutdown();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void everyLogOfADirLoadsAfterAnUncleanStopWithOneOrSeveralLoaderThreads(int threads) throws Exception {
        Path d = tmp.resolve("d");
        LogManager m = manager(List.of(d));
        for (int p = 0; p < 40; p++) {
            Log log = m.getOrCreateLog("t", p, new byte[16], config);
            for (int i = 0; i <= p % 5; i++) {
                log.appendAsLeader(TestBatches.batch(2, "r" + i, 1), 0);
            }
            log.close(); // a crash: no marker, no final checkpoint
        }
        LogManager again = new LogManager(List.of(d), config, time, scheduler,
            new LogManager.Intervals(300_000, 1_000, 60_000, 15_000, true, threads));
        again.startup();
        assertThat(again.offlineDirs()).isEmpty();
        for (int p = 0; p < 40; p++) {
            Log log = again.getLog("t", p).orElseThrow();
            assertThat(log.logEndOffset()).as("t-" + p).isEqualTo(2L * (p % 5 + 1));
            assertThat(log.recoveryPoint()).as("t-" + p).isEqualTo(log.logEndOffset());
        }
        // the least-used-dir count saw every loaded log
        assertThat(again.getOrCreateLog("u", 0, new byte[16], config).dir().getParent()).isEqualTo(d.toAbsolutePath().normalize());
        again.shutdown();
    }

    @Test
    void aPartitionInTwoDirsTakesTheSecondOfflineWithNoneOfItsLogsServing() throws Exception {
        Path a = tmp.resolve("a");
        Path b = tmp.resolve("b");
        LogManager first = manager(List.of(a));
        first.getOrCreateLog("t", 0, new byte[16], config).appendAsLeader(TestBatches.batch(1, "a", 1), 0);
        first.shutdown();
        LogManager second = manager(List.of(b));
        for (int p = 0; p < 30; p++) {
            second.getOrCreateLog("t", p, new byte[16], config).appendAsLeader(TestBatches.batch(1, "b", 1), 0);
        }
        second.shutdown();
        LogManager both = new LogManager(List.of(a, b), config, time, scheduler,
            new LogManager.Intervals(300_000, 1_000, 60_000, 15_000, true, 4));
        both.startup();
        Path offline = b.toAbsolutePath().normalize();
        assertThat(both.offlineDirs()).containsExactly(offline);
        for (int p = 0; p < 30; p++) {
            both.getLog("t", p).filter(l -> l.dir().getParent().equals(offline))
                .ifPresent(l -> assertThat(l.isOffline()).as(l.topicPartition() + " in the offline dir").isTrue());
        }
        assertThat(both.getLog("t", 0).orElseThrow().dir().getParent()).isEqualTo(a.toAbsolutePath().normalize());
        both.shutdown();
    }

    @Test
    void aLogThatFailsToLoadTakesItsDirOfflineWhileTheOtherLoadersFinish() throws Exception {
        List<Path> dirs = List.of(tmp.resolve("bad"), tmp.resolve("good"));
        LogManager m = manager(dirs);
        for (int p = 0; p < 8; p++) {
            m.getOrCreateLog("t", p, new byte[16], config).appendAsLeader(TestBatches.batch(1, "x", 1), 0);
        }
        m.shutdown();
        Path broken = dirs.get(0).resolve("t-0");
        if (!Files.isDirectory(broken)) {
            broken = dirs.get(0).resolve("t-1");
        }
        // a segment that cannot be read: its .log is a directory now
        Path segment = broken.resolve("00000000000000000000.log");
        Files.delete(segment);
        Files.createDirectory(segment);
        LogManager again = new LogManager(dirs, config, time, scheduler,
            new LogManager.Intervals(300_000, 1_000, 60_000, 15_000, true, 4));
        again.startup();
        assertThat(again.offlineDirs()).containsExactly(dirs.get(0).toAbsolutePath().normalize());
        Path bad = dirs.get(0).toAbsolutePath().normalize();
        int good = 0;
        for (int p = 0; p < 8; p++) {
            Log log = again.getLog("t", p).orElse(null);
            if (log == null || log.dir().getParent().equals(bad)) {
                assertThat(log == null || log.isOffline()).as("t-" + p + " in the offline dir").isTrue();
            } else {
                assertThat(log.isOffline()).as("t-" + p + " in the other dir").isFalse();
                assertThat(log.logEndOffset()).isEqualTo(1);
                good++;
            }
        }
        assertThat(good).as("logs loaded in the other dir").isEqualTo(4);
        again.shutdown();
    }

    @Test
    void aTruncationRewritesTheRecoveryPointCheckpointAtOnce() throws Exception {
        Path d = tmp.resolve("d");
        LogManager m = manager(List.of(d));
        Log log = flushedAndCheckpointed(m);
        assertThat(checkpointedRecoveryPoint(d)).isEqualTo(20);

        log.truncateTo(8);
        assertThat(checkpointedRecoveryPoint(d)).as("after truncateTo, before any periodic checkpoint").isEqualTo(8);
        log.truncateFullyAndStartAt(4);
        assertThat(checkpointedRecoveryPoint(d)).as("after truncateFullyAndStartAt").isEqualTo(4);
        m.shutdown();
    }

    /** t-0 with 10 batches of 2 records, flushed, and its recovery point (20) checkpointed. */
    private Log flushedAndCheckpointed(LogManager m) {
        Log log = m.getOrCreateLog("t", 0, new byte[16], config);
        for (int i = 0; i < 10; i++) {
            log.appendAsLeader(TestBatches.batch(2, "r" + i, 1), 0);
        }
        log.flush();
        m.checkpointRecoveryPoints();
        return log;
    }

    private static long checkpointedRecoveryPoint(Path dir) throws IOException {
        List<String> lines = Files.readAllLines(dir.toAbsolutePath().normalize().resolve("recovery-point-offset-checkpoint"));
        return lines.stream().filter(l -> l.startsWith("t 0 ")).mapToLong(l -> Long.parseLong(l.substring(4))).findFirst()
            .orElseThrow();
    }

    @Test
    void retentionAndCompactionRunThroughTheManager() throws Exception {
        LogManager m = manager(List.of(tmp.resolve("d")));
        LogConfig shortLived = config.with(Map.of(LogConfig.RETENTION_MS, "1000"));
        Log log = m.getOrCreateLog("t", 0, new byte[16], shortLived);
        for (int i = 0; i < 10; i++) {
            log.appendAsLeader(TestBatches.sized(1, 300, time.milliseconds()), 0);
        }
        log.updateHighWatermark(log.logEndOffset());
        time.advance(5000);
        m.runRetention();
        assertThat(log.numberOfSegments()).isEqualTo(1);
        assertThat(log.logStartOffset()).isPositive();

        Log compacted = m.getOrCreateLog("c", 0, new byte[16], config.with(Map.of(LogConfig.CLEANUP_POLICY, "compact")));
        for (int i = 0; i < 30; i++) {
            compacted.appendAsLeader(TestBatches.keyed(time.milliseconds(), "k" + (i % 3), "v" + i), 0);
        }
        compacted.updateHighWatermark(compacted.logEndOffset());
        long before = compacted.size();
        assertThat(m.runCleaner()).isPositive();
        assertThat(compacted.size()).isLessThan(before);
        m.shutdown();
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
