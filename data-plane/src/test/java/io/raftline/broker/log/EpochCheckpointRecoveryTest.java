package io.raftline.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.log.LeaderEpochCache.EpochEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader-epoch checkpoint is written without fsync when an epoch starts and made durable with the log's flush;
 * after a crash the loader must give the same epoch cache whatever shape the checkpoint was left in: the durable
 * (stale) version, torn, garbage, empty or missing. The partition.metadata file follows the same rule.
 */
class EpochCheckpointRecoveryTest {

    @TempDir
    Path tmp;

    /** Epochs 1..3 (3 batches of 2 records each), flushed; then epochs 4 and 5 unflushed. Returns the flushed end. */
    private static long appendFlushedThenUnflushed(LogFixture f) {
        for (int epoch = 1; epoch <= 3; epoch++) {
            for (int i = 0; i < 3; i++) {
                f.log.appendAsLeader(TestBatches.batch(2, "e" + epoch + "-" + i, epoch), epoch);
            }
        }
        f.log.flush();
        long flushed = f.log.recoveryPoint();
        assertThat(flushed).isEqualTo(18);
        for (int epoch = 4; epoch <= 5; epoch++) {
            for (int i = 0; i < 3; i++) {
                f.log.appendAsLeader(TestBatches.batch(2, "e" + epoch + "-" + i, epoch), epoch);
            }
        }
        return flushed;
    }

    private static final List<EpochEntry> ALL_FIVE = List.of(new EpochEntry(1, 0), new EpochEntry(2, 6), new EpochEntry(3, 12),
        new EpochEntry(4, 18), new EpochEntry(5, 24));

    private static Path checkpoint(LogFixture f) {
        return f.dir.resolve(LeaderEpochCache.FILE_NAME);
    }

    @Test
    void newEpochsAreWrittenUnsyncedAndMadeDurableByTheFlush() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            f.log.appendAsLeader(TestBatches.batch(2, "a", 1), 1);
            assertThat(f.log.epochCache().isUnsynced()).isTrue();
            // already visible in the file (a process crash keeps it), just not fsynced
            assertThat(Files.readString(checkpoint(f))).isEqualTo("0\n1\n1 0\n");
            f.log.appendAsLeader(TestBatches.batch(2, "b", 1), 1);
            f.log.flush();
            assertThat(f.log.epochCache().isUnsynced()).isFalse();
            assertThat(f.log.recoveryPoint()).isEqualTo(4);
            // a truncation is written durably at once
            f.log.appendAsLeader(TestBatches.batch(2, "c", 1), 2);
            assertThat(f.log.epochCache().isUnsynced()).isTrue();
            f.log.truncateTo(4);
            assertThat(f.log.epochCache().isUnsynced()).isFalse();
            assertThat(f.log.epochCache().entries()).containsExactly(new EpochEntry(1, 0));
        }
    }

    @Test
    void thePeriodicCheckpointTaskSyncsThemWithoutFlushingTheLog() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            f.log.appendAsLeader(TestBatches.batch(2, "a", 1), 1);
            assertThat(f.log.epochCache().isUnsynced()).isTrue();
            assertThat(f.log.partitionMetadataUnsynced()).isTrue();
            f.log.syncMetadataFilesInBackground();
            assertThat(f.log.epochCache().isUnsynced()).isFalse();
            assertThat(f.log.partitionMetadataUnsynced()).isFalse();
            assertThat(f.log.recoveryPoint()).isZero();
        }
    }

    @Test
    void aRollFlushesTheCheckpointInTheBackground() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            f.log.appendAsLeader(TestBatches.batch(2, "a", 1), 1);
            assertThat(f.log.epochCache().isUnsynced()).isTrue();
            f.log.roll();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> f.log.recoveryPoint() == 2 && !f.log.epochCache().isUnsynced());
        }
    }

    @Test
    void staleCheckpointGainsTheEpochsOfTheRecoveredTail() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            long flushed = appendFlushedThenUnflushed(f);
            assertThat(f.log.epochCache().entries()).isEqualTo(ALL_FIVE);
            // the crash leaves the durable version, written at the flush
            Files.writeString(checkpoint(f), "0\n3\n1 0\n2 6\n3 12\n");
            f.restartUnclean(flushed);
            assertThat(f.log.logEndOffset()).isEqualTo(30);
            assertThat(f.log.epochCache().entries()).isEqualTo(ALL_FIVE);
            assertThat(f.log.epochCache().isUnsynced()).isFalse();
            assertThat(Files.readString(checkpoint(f))).isEqualTo("0\n5\n1 0\n2 6\n3 12\n4 18\n5 24\n");
            assertThat(f.log.endOffsetForEpoch(4)).contains(new EpochEndOffset(4, 24));
        }
    }

    @Test
    void tornGarbageEmptyOrMissingCheckpointsAreRebuiltFromTheWholeLog() throws Exception {
        List<String> shapes = List.of("torn", "garbage", "empty", "missing", "bad order");
        for (String shape : shapes) {
            try (LogFixture f = new LogFixture(tmp.resolve(shape.replace(' ', '-')), Map.of(LogConfig.SEGMENT_BYTES, "400"))) {
                long flushed = appendFlushedThenUnflushed(f);
                assertThat(f.log.numberOfSegments()).as(shape).isGreaterThan(3);
                f.log.close(); // the crash: no background flush after a roll may touch the files below any more
                switch (shape) {
                    case "torn" -> Files.writeString(checkpoint(f), "0\n5\n1 0\n2 6\n");
                    case "garbage" -> Files.write(checkpoint(f), new byte[] {0, 0, 7, -1, 3, 10, 42});
                    case "empty" -> Files.write(checkpoint(f), new byte[0]);
                    case "missing" -> Files.delete(checkpoint(f));
                    default -> Files.writeString(checkpoint(f), "0\n2\n3 0\n2 6\n");
                }
                f.restartUnclean(flushed);
                assertThat(f.log.epochCache().entries()).as(shape).isEqualTo(ALL_FIVE);
                assertThat(f.storageErrors).as(shape).isZero();
                // and it is on disk now: a clean restart reads the same
                f.restartClean();
                assertThat(f.log.epochCache().entries()).as(shape).isEqualTo(ALL_FIVE);
            }
        }
    }

    @Test
    void aMissingCheckpointAfterACleanShutdownIsRebuiltToo() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            appendFlushedThenUnflushed(f);
            f.log.flush();
            Files.delete(checkpoint(f));
            f.restartClean();
            assertThat(f.log.epochCache().entries()).isEqualTo(ALL_FIVE);
        }
    }

    @Test
    void checkpointEntriesPastTheRecoveredEndAreDropped() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            long flushed = appendFlushedThenUnflushed(f);
            // the crash tore the log inside epoch 4's first batch (offset 18): only the flushed prefix survives
            Path segment = f.dir.resolve(LogSegment.fileName(0, LogSegment.LOG_SUFFIX));
            long keep = f.log.read(18, 1 << 20, Long.MAX_VALUE, false).slices().get(0).position() + 20;
            f.log.close();
            try (var ch = java.nio.channels.FileChannel.open(segment, StandardOpenOption.WRITE)) {
                ch.truncate(keep);
            }
            f.restartUnclean(flushed);
            assertThat(f.log.logEndOffset()).isEqualTo(18);
            assertThat(f.log.epochCache().entries()).containsExactly(new EpochEntry(1, 0), new EpochEntry(2, 6), new EpochEntry(3, 12));
        }
    }

    @Test
    void aCheckpointContradictedByTheTailIsRebuilt() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            long flushed = appendFlushedThenUnflushed(f);
            // well formed, but its epoch 9 below offset 18 is above the tail's epochs 4 and 5: not to be trusted
            Files.writeString(checkpoint(f), "0\n2\n1 0\n9 6\n");
            f.restartUnclean(flushed);
            assertThat(f.log.epochCache().entries()).isEqualTo(ALL_FIVE);
        }
    }

    @Test
    void truncationStillTruncatesTheCacheAcrossACrash() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            appendFlushedThenUnflushed(f);
            f.log.truncateTo(14);
            assertThat(f.log.epochCache().entries()).containsExactly(new EpochEntry(1, 0), new EpochEntry(2, 6), new EpochEntry(3, 12));
            f.log.appendAsLeader(TestBatches.batch(2, "new", 1), 7);
            assertThat(f.log.epochCache().entries()).containsExactly(new EpochEntry(1, 0), new EpochEntry(2, 6), new EpochEntry(3, 12),
                new EpochEntry(7, 14));
            // the crash loses the unsynced epoch 7 (the durable truncated version stays): the tail brings it back
            Files.writeString(checkpoint(f), "0\n3\n1 0\n2 6\n3 12\n");
            f.restartUnclean(0);
            assertThat(f.log.logEndOffset()).isEqualTo(16);
            assertThat(f.log.epochCache().entries()).containsExactly(new EpochEntry(1, 0), new EpochEntry(2, 6), new EpochEntry(3, 12),
                new EpochEntry(7, 14));
            assertThat(f.log.endOffsetForEpoch(3)).contains(new EpochEndOffset(3, 14));
        }
    }

    /**
     * Random epochs, flush points and crash shapes (seeded; the seed is printed): after the unclean restart the cache
     * equals the one before the crash, which the appends built.
     */
    @Test
    void randomCrashShapesAlwaysGiveTheCacheTheAppendsBuilt() throws Exception {
        long seed = 20261129L;
        System.out.println("EpochCheckpointRecoveryTest seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < 25; round++) {
            try (LogFixture f = new LogFixture(tmp.resolve("r" + round), Map.of(LogConfig.SEGMENT_BYTES, "500"))) {
                int epoch = random.nextInt(3);
                String durable = null;
                long flushed = 0;
                for (int b = 0; b < 40; b++) {
                    if (random.nextInt(5) == 0) {
                        epoch += 1 + random.nextInt(2);
                    }
                    f.log.appendAsLeader(TestBatches.batch(1 + random.nextInt(3), "r" + b, b), epoch);
                    if (random.nextInt(10) == 0) {
                        f.log.flush();
                        flushed = f.log.recoveryPoint();
                        durable = Files.readString(checkpoint(f));
                    }
                }
                List<EpochEntry> before = f.log.epochCache().entries();
                f.log.close();
                int shape = random.nextInt(4);
                if (shape == 0 && durable != null) {
                    Files.writeString(checkpoint(f), durable);
                } else if (shape == 1) {
                    Files.delete(checkpoint(f));
                } else if (shape == 2) {
                    byte[] all = Files.readAllBytes(checkpoint(f));
                    Files.write(checkpoint(f), java.util.Arrays.copyOf(all, random.nextInt(all.length)));
                }
                f.restartUnclean(flushed);
                assertThat(f.log.epochCache().entries()).as("seed %d round %d shape %d", seed, round, shape).isEqualTo(before);
            }
        }
    }

    @Test
    void tornPartitionMetadataLeavesTheTopicIdUnknownInsteadOfFailingTheLoad() throws Exception {
        try (LogFixture f = new LogFixture(tmp, Map.of())) {
            f.log.appendAsLeader(TestBatches.batch(2, "a", 1), 1);
            assertThat(f.log.partitionMetadataUnsynced()).isTrue();
            f.log.flush();
            assertThat(f.log.partitionMetadataUnsynced()).isFalse();
            Files.writeString(f.dir.resolve(PartitionMetadataFile.FILE_NAME), "version: 0\ntopic_id: AAAA", StandardCharsets.UTF_8);
            f.log.close();
            Log reopened = Log.open(f.dir, "t", 0, null, f.config(), 0, false, f.time, f.scheduler, (l, e) -> f.storageErrors++);
            f.log = reopened;
            assertThat(reopened.topicId()).isNull();
            assertThat(f.storageErrors).isZero();
        }
    }
}
