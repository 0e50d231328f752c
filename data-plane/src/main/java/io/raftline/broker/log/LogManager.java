package io.raftline.broker.log;

import io.raftline.common.Time;
import io.raftline.protocol.ErrorCode;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every partition log of a broker, over one or more {@code log.dirs}. New partitions go to the online directory
 * holding the fewest. The first I/O error in a directory (a failing disk, a full disk) takes the whole directory
 * offline: its logs refuse every further call with STORAGE_ERROR and {@link LogDirListener}s are told, so the
 * broker can drop those replicas from their ISRs and move their leaderships; the other directories keep serving.
 *
 * <p>Per directory: {@code recovery-point-offset-checkpoint} (where recovery starts for each log),
 * {@code replication-offset-checkpoint} (high watermarks: the broker sets each log's HW with
 * {@link Log#updateHighWatermark} or {@link #checkpointHighWatermarks(Map)}, the manager persists them),
 * {@code log-start-offset-checkpoint} (each log's start offset: rewritten, fsynced, whenever a delete-records request
 * or a follower's full truncation moves one, so a start moved inside a segment survives a restart), and
 * {@code .raftline_clean_shutdown}, written after a clean shutdown so the next start recovers nothing.
 *
 * <p>Background work on the given scheduler: retention every {@code log.retention.check.interval.ms}, the
 * {@code flush.ms} check every second, recovery-point and high-watermark checkpoints every
 * {@code log.flush.offset.checkpoint.interval.ms}, compaction every {@code log.cleaner.backoff.ms}. Each task can
 * also be run by hand (tests use a manual clock).
 *
 * <p>Threading: the public methods are thread-safe; creation and deletion of logs are serialized on this object.
 */
public final class LogManager {

    private static final Logger LOG = LoggerFactory.getLogger(LogManager.class);

    static final String RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
    static final String REPLICATION_CHECKPOINT = "replication-offset-checkpoint";
    static final String LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint";
    static final String CLEAN_SHUTDOWN_MARKER = ".raftline_clean_shutdown";
    static final String DELETE_DIR_SUFFIX = "-delete";

    /** Told when a log directory goes offline. */
    public interface LogDirListener {
        void onLogDirOffline(String dir);
    }

    /**
     * How often the background tasks run, and how many threads load each log dir at start
     * ({@code num.recovery.threads.per.data.dir}, as Kafka's, default 2: a log recovered after an unclean stop is
     * fsynced before its recovery point moves, so one thread spends most of a recovery waiting on the disk).
     */
    public record Intervals(long retentionCheckMs, long flushCheckMs, long checkpointMs, long cleanerBackoffMs,
                            boolean cleanerEnabled, int recoveryThreadsPerDir) {
        public static final int DEFAULT_RECOVERY_THREADS = 2;
        public static final Intervals DEFAULT = new Intervals(300_000, 1_000, 60_000, 15_000);

        /** With the default recovery threads. */
        public Intervals(long retentionCheckMs, long flushCheckMs, long checkpointMs, long cleanerBackoffMs,
                         boolean cleanerEnabled) {
            this(retentionCheckMs, flushCheckMs, checkpointMs, cleanerBackoffMs, cleanerEnabled, DEFAULT_RECOVERY_THREADS);
        }

        /** With the cleaner on. */
        public Intervals(long retentionCheckMs, long flushCheckMs, long checkpointMs, long cleanerBackoffMs) {
            this(retentionCheckMs, flushCheckMs, checkpointMs, cleanerBackoffMs, true);
        }

        /** From the broker's properties (Kafka's key names), falling back to the defaults. */
        public static Intervals fromBrokerProperties(Map<String, String> props) {
            return new Intervals(
                longProp(props, "log.retention.check.interval.ms", DEFAULT.retentionCheckMs),
                longProp(props, "log.flush.scheduler.interval.ms", DEFAULT.flushCheckMs),
                longProp(props, "log.flush.offset.checkpoint.interval.ms", DEFAULT.checkpointMs),
                longProp(props, "log.cleaner.backoff.ms", DEFAULT.cleanerBackoffMs),
                !"false".equalsIgnoreCase(props.getOrDefault("log.cleaner.enable", "true").trim()),
                (int) Math.min(1024, longProp(props, "num.recovery.threads.per.data.dir", DEFAULT_RECOVERY_THREADS)));
        }

        private static long longProp(Map<String, String> props, String key, long fallback) {
            String raw = props.get(key);
            if (raw == null) {
                return fallback;
            }
            try {
                long v = Long.parseLong(raw.trim());
                if (v <= 0) {
                    throw new NumberFormatException();
                }
                return v;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("invalid value for " + key + ": '" + raw + "' (expected a positive whole number)");
            }
        }
    }

    private final List<Path> logDirs;
    private final LogConfig defaultConfig;
    private final Time time;
    private final ScheduledExecutorService scheduler;
    private final Intervals intervals;
    private final LogCleaner cleaner;
    private final Map<TopicPartitionKey, Log> logs = new ConcurrentHashMap<>();
    /**
     * How many of {@link #logs} each log dir holds, kept beside the map (guarded by {@code this}, like every change to
     * the map): a new log goes to the least-used dir without counting every log again, which made creating P logs
     * cost O(P^2).
     */
    private final Map<Path, Integer> logsPerDir = new HashMap<>();
    private final Set<Path> offlineDirs = ConcurrentHashMap.newKeySet();
    /** Held while a checkpoint file is written: the periodic task and truncations would share its temp file. */
    private final Object checkpointWriteLock = new Object();
    private final List<LogDirListener> listeners = new CopyOnWriteArrayList<>();
    private final List<ScheduledFuture<?>> tasks = new ArrayList<>();
    private volatile boolean started;

    public LogManager(List<Path> logDirs, LogConfig defaultConfig, Time time, ScheduledExecutorService scheduler) {
        this(logDirs, defaultConfig, time, scheduler, Intervals.DEFAULT);
    }

    public LogManager(List<Path> logDirs, LogConfig defaultConfig, Time time, ScheduledExecutorService scheduler, Intervals intervals) {
        this(logDirs, defaultConfig, time, scheduler, intervals, LogCleaner.DEFAULT_DEDUPE_BUFFER_BYTES);
    }

    /** @param dedupeBufferBytes {@code log.cleaner.dedupe.buffer.size}: the most memory one compaction's key map takes */
    public LogManager(List<Path> logDirs, LogConfig defaultConfig, Time time, ScheduledExecutorService scheduler, Intervals intervals,
                      long dedupeBufferBytes) {
        if (logDirs.isEmpty()) {
            throw new IllegalArgumentException("log.dirs is empty");
        }
        this.logDirs = logDirs.stream().map(p -> p.toAbsolutePath().normalize()).toList();
        this.defaultConfig = defaultConfig;
        this.time = time;
        this.scheduler = scheduler;
        this.intervals = intervals;
        this.cleaner = new LogCleaner(time, dedupeBufferBytes);
    }

    public void addListener(LogDirListener listener) {
        listeners.add(listener);
    }

    /**
     * Loads every partition directory in every log dir (recovering after an unclean stop), finishes interrupted
     * deletions, restores high watermarks and starts the background tasks. A directory that fails to load goes
     * offline; the others still start.
     */
    public synchronized void startup() {
        if (started) {
            return;
        }
        for (Path dir : logDirs) {
            try {
                loadDir(dir);
            } catch (IOException | RuntimeException e) {
                LOG.error("log dir {} failed to load; it is offline", dir, e);
                markDirOffline(dir, e instanceof IOException ? (IOException) e : new IOException(e));
            }
        }
        started = true;
        tasks.add(scheduler.scheduleWithFixedDelay(this::runRetention, intervals.retentionCheckMs(), intervals.retentionCheckMs(),
            TimeUnit.MILLISECONDS));
        tasks.add(scheduler.scheduleWithFixedDelay(this::runFlushCheck, intervals.flushCheckMs(), intervals.flushCheckMs(),
            TimeUnit.MILLISECONDS));
        tasks.add(scheduler.scheduleWithFixedDelay(this::runCheckpoints, intervals.checkpointMs(), intervals.checkpointMs(),
            TimeUnit.MILLISECONDS));
        if (intervals.cleanerEnabled()) {
            tasks.add(scheduler.scheduleWithFixedDelay(this::runCleaner, intervals.cleanerBackoffMs(), intervals.cleanerBackoffMs(),
                TimeUnit.MILLISECONDS));
        }
    }

    private void loadDir(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path marker = dir.resolve(CLEAN_SHUTDOWN_MARKER);
        boolean clean = Files.exists(marker);
        Map<TopicPartitionKey, Long> recoveryPoints = readOffsets(dir.resolve(RECOVERY_POINT_CHECKPOINT));
        Map<TopicPartitionKey, Long> hws = readOffsets(dir.resolve(REPLICATION_CHECKPOINT));
        Map<TopicPartitionKey, Long> starts = readOffsets(dir.resolve(LOG_START_OFFSET_CHECKPOINT));
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, Files::isDirectory)) {
            stream.forEach(children::add);
        }
        ExecutorService loaders = Executors.newFixedThreadPool(Math.max(1, intervals.recoveryThreadsPerDir()), r -> {
            Thread t = new Thread(r, "log-loader-" + dir.getFileName());
            t.setDaemon(true);
            return t;
        });
        List<Future<?>> loads = new ArrayList<>();
        IOException failed = null;
        try {
            for (Path child : children) {
                String name = child.getFileName().toString();
                if (name.endsWith(DELETE_DIR_SUFFIX)) {
                    scheduler.execute(() -> deleteRecursively(child));
                    continue;
                }
                TopicPartitionKey key = TopicPartitionKey.parseDirName(name);
                if (key == null) {
                    LOG.warn("ignoring {}: not a <topic>-<partition> directory", child);
                    continue;
                }
                if (logs.containsKey(key)) {
                    // the loads already started finish first: a log tracked after the dir went offline would serve
                    failed = new IOException("partition " + key.dirName() + " exists in two log dirs: "
                        + logs.get(key).dir() + " and " + child);
                    break;
                }
                loads.add(loaders.submit(() -> {
                    Log log = Log.open(child, key.topic(), key.partition(), null, defaultConfig,
                        recoveryPoints.getOrDefault(key, 0L), clean, time, scheduler, logEvents);
                    Long start = starts.get(key);
                    if (start != null) {
                        log.restoreLogStartOffset(start);
                    }
                    Long hw = hws.get(key);
                    if (hw != null) {
                        log.updateHighWatermark(hw);
                    }
                    synchronized (logsPerDir) {
                        track(key, log);
                    }
                    return null;
                }));
            }
            // every load finishes (or fails) before the dir is judged: the first failure takes it offline
            for (Future<?> load : loads) {
                try {
                    load.get();
                } catch (ExecutionException e) {
                    if (failed == null) {
                        failed = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while loading " + dir, e);
                }
            }
            if (failed != null) {
                throw failed;
            }
        } finally {
            loaders.shutdownNow();
        }
        Files.deleteIfExists(marker);
        writeRecoveryPoints(dir);
    }

    /** The partition's log, created in the least loaded online dir if it does not exist; an existing one gets {@code config}. */
    public synchronized Log getOrCreateLog(String topic, int partition, byte[] topicId, LogConfig config) {
        TopicPartitionKey key = new TopicPartitionKey(topic, partition);
        Log existing = logs.get(key);
        if (existing != null) {
            if (!existing.config().equals(config)) {
                existing.updateConfig(config);
            }
            return existing;
        }
        // The online dir holding the fewest logs; the first of those in log.dirs order on a tie.
        Path dir = null;
        int fewest = Integer.MAX_VALUE;
        for (Path d : logDirs) {
            int n = logsPerDir.getOrDefault(d, 0);
            if (!offlineDirs.contains(d) && n < fewest) {
                dir = d;
                fewest = n;
            }
        }
        if (dir == null) {
            throw new LogException(ErrorCode.STORAGE_ERROR, "every log dir is offline: cannot create " + key.dirName());
        }
        try {
            Log log = Log.open(dir.resolve(key.dirName()), topic, partition, topicId, config, 0, false, time, scheduler,
                logEvents);
            track(key, log);
            return log;
        } catch (IOException e) {
            markDirOffline(dir, e);
            throw new LogException(ErrorCode.STORAGE_ERROR, "cannot create " + key.dirName() + " in " + dir + ": " + e, e);
        }
    }

    private void track(TopicPartitionKey key, Log log) {
        logs.put(key, log);
        logsPerDir.merge(log.dir().getParent(), 1, Integer::sum);
    }

    public Optional<Log> getLog(String topic, int partition) {
        return Optional.ofNullable(logs.get(new TopicPartitionKey(topic, partition)));
    }

    public Collection<Log> allLogs() {
        return List.copyOf(logs.values());
    }

    /** Removes the log: closes it, renames its dir to {@code <dir>.<uuid>-delete} and deletes that in the background. */
    public synchronized void deleteLog(String topic, int partition) {
        Log log = logs.remove(new TopicPartitionKey(topic, partition));
        if (log == null) {
            return;
        }
        logsPerDir.merge(log.dir().getParent(), -1, Integer::sum);
        log.close();
        // Its start offset leaves the checkpoint now: a log created again under the same name must not start there.
        try {
            writeOffsets(log.dir().getParent(), LOG_START_OFFSET_CHECKPOINT, Log::logStartOffset);
        } catch (IOException e) {
            markDirOffline(log.dir().getParent(), e);
            return;
        }
        Path target = log.dir().resolveSibling(log.dir().getFileName() + "." + UUID.randomUUID().toString().replace("-", "")
            + DELETE_DIR_SUFFIX);
        try {
            Files.move(log.dir(), target);
            scheduler.execute(() -> deleteRecursively(target));
        } catch (IOException e) {
            markDirOffline(log.dir().getParent(), e);
        }
    }

    /** Sets the given logs' high watermarks and writes every online dir's replication-offset-checkpoint. */
    public void checkpointHighWatermarks(Map<TopicPartitionKey, Long> highWatermarks) {
        for (Map.Entry<TopicPartitionKey, Long> e : highWatermarks.entrySet()) {
            Log log = logs.get(e.getKey());
            if (log != null && !log.isOffline()) {
                log.updateHighWatermark(e.getValue());
            }
        }
        writeOffsetsPerDir(REPLICATION_CHECKPOINT, Log::highWatermark);
    }

    /** The high watermarks stored in every online dir's replication-offset-checkpoint. */
    public Map<TopicPartitionKey, Long> readHighWatermarks() {
        Map<TopicPartitionKey, Long> out = new HashMap<>();
        for (Path dir : onlineDirs()) {
            try {
                out.putAll(readOffsets(dir.resolve(REPLICATION_CHECKPOINT)));
            } catch (IOException e) {
                markDirOffline(dir, e);
            }
        }
        return out;
    }

    /** Writes every online dir's recovery-point-offset-checkpoint from the logs' recovery points. */
    public void checkpointRecoveryPoints() {
        writeOffsetsPerDir(RECOVERY_POINT_CHECKPOINT, Log::recoveryPoint);
    }

    private interface OffsetOf {
        long of(Log log);
    }

    private void writeOffsetsPerDir(String fileName, OffsetOf offsetOf) {
        for (Path dir : onlineDirs()) {
            try {
                writeOffsets(dir, fileName, offsetOf);
            } catch (IOException e) {
                markDirOffline(dir, e);
            }
        }
    }

    private void writeRecoveryPoints(Path dir) throws IOException {
        writeOffsets(dir, RECOVERY_POINT_CHECKPOINT, Log::recoveryPoint);
    }

    /** One checkpoint file of one dir; one writer at a time (the periodic task and truncations share the temp file). */
    private void writeOffsets(Path dir, String fileName, OffsetOf offsetOf) throws IOException {
        synchronized (checkpointWriteLock) {
            List<String> lines = new ArrayList<>();
            for (Map.Entry<TopicPartitionKey, Log> e : logs.entrySet()) {
                if (e.getValue().dir().getParent().equals(dir)) {
                    lines.add(e.getKey().topic() + " " + e.getKey().partition() + " " + offsetOf.of(e.getValue()));
                }
            }
            CheckpointFile.write(dir.resolve(fileName), lines);
        }
    }

    private static Map<TopicPartitionKey, Long> readOffsets(Path file) throws IOException {
        Map<TopicPartitionKey, Long> out = new HashMap<>();
        for (String line : CheckpointFile.read(file)) {
            String[] parts = line.trim().split(" ");
            if (parts.length != 3) {
                throw new IOException(file + ": bad line '" + line + "'");
            }
            try {
                out.put(new TopicPartitionKey(parts[0], Integer.parseInt(parts[1])), Long.parseLong(parts[2]));
            } catch (NumberFormatException e) {
                throw new IOException(file + ": bad line '" + line + "'");
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- background tasks

    /** Applies retention to every online log. */
    public void runRetention() {
        for (Log log : logs.values()) {
            try {
                log.deleteOldSegments();
            } catch (LogException e) {
                LOG.warn("retention of {} failed: {}", log.topicPartition(), e.getMessage());
            }
        }
    }

    /** Flushes every log whose flush.ms has passed. */
    public void runFlushCheck() {
        for (Log log : logs.values()) {
            try {
                if (!log.isOffline() && !log.isClosed()) {
                    log.flushIfDue();
                }
            } catch (LogException e) {
                LOG.warn("flush of {} failed: {}", log.topicPartition(), e.getMessage());
            }
        }
    }

    /**
     * Writes the recovery-point and high-watermark checkpoints; first makes durable the partition.metadata and epoch
     * checkpoint files written since their log's last flush (so a clean shutdown has few of them left to fsync).
     */
    public void runCheckpoints() {
        for (Log log : logs.values()) {
            try {
                log.syncMetadataFilesInBackground();
            } catch (LogException e) {
                LOG.warn("sync of {}'s metadata files failed: {}", log.topicPartition(), e.getMessage());
            }
        }
        checkpointRecoveryPoints();
        writeOffsetsPerDir(REPLICATION_CHECKPOINT, Log::highWatermark);
        writeOffsetsPerDir(LOG_START_OFFSET_CHECKPOINT, Log::logStartOffset);
    }

    /** Compacts every compacted log that is dirty enough; returns the segments cleaned. */
    public int runCleaner() {
        int cleaned = 0;
        for (Log log : logs.values()) {
            try {
                cleaned += cleaner.clean(log).segmentsCleaned();
            } catch (IOException e) {
                log.markOffline();
                logEvents.onStorageError(log, e);
            } catch (RuntimeException e) {
                LOG.error("compaction of {} failed", log.topicPartition(), e);
            }
        }
        return cleaned;
    }

    // ---------------------------------------------------------------- offline dirs

    /** Every log directory this broker was configured with, online or not. */
    public List<Path> logDirs() {
        return List.copyOf(logDirs);
    }

    public List<Path> onlineDirs() {
        return logDirs.stream().filter(d -> !offlineDirs.contains(d)).toList();
    }

    public Set<Path> offlineDirs() {
        return Set.copyOf(offlineDirs);
    }

    /** What every log of this manager reports: I/O errors (the dir goes offline) and truncations. */
    private final Log.StorageErrorHandler logEvents = new Log.StorageErrorHandler() {
        @Override
        public void onStorageError(Log log, IOException e) {
            markDirOffline(log.dir().getParent(), e);
        }

        /**
         * A truncated log's recovery point fell; the dir's checkpoint is rewritten now, not at the next periodic
         * checkpoint, or a crash before then would trust data appended since below the old recovery point.
         */
        @Override
        public void onTruncated(Log log) {
            Path dir = log.dir().getParent();
            if (offlineDirs.contains(dir)) {
                return;
            }
            try {
                writeRecoveryPoints(dir);
                writeOffsets(dir, LOG_START_OFFSET_CHECKPOINT, Log::logStartOffset);
            } catch (IOException e) {
                markDirOffline(dir, e);
            }
        }

        /** Durable before the delete-records request is answered; a failure takes the dir (and so the log) offline. */
        @Override
        public void onLogStartOffsetIncremented(Log log) {
            Path dir = log.dir().getParent();
            if (offlineDirs.contains(dir)) {
                return;
            }
            try {
                writeOffsets(dir, LOG_START_OFFSET_CHECKPOINT, Log::logStartOffset);
            } catch (IOException e) {
                markDirOffline(dir, e);
            }
        }
    };

    private void markDirOffline(Path dir, IOException cause) {
        Path normalized = dir.toAbsolutePath().normalize();
        if (!offlineDirs.add(normalized)) {
            return;
        }
        LOG.error("log dir {} is offline after an I/O error: {}", normalized, cause.toString());
        for (Log log : logs.values()) {
            if (log.dir().getParent().equals(normalized)) {
                log.markOffline();
            }
        }
        for (LogDirListener l : listeners) {
            try {
                l.onLogDirOffline(normalized.toString());
            } catch (RuntimeException e) {
                LOG.error("log dir listener failed", e);
            }
        }
    }

    /**
     * Stops the background tasks, flushes every online log and writes its producer-state snapshot at its end (the
     * caller has stopped appends first), writes the checkpoints and the clean-shutdown markers.
     */
    public synchronized void shutdown() {
        for (ScheduledFuture<?> t : tasks) {
            t.cancel(false);
        }
        tasks.clear();
        for (Log log : logs.values()) {
            if (!log.isOffline() && !log.isClosed()) {
                try {
                    log.flush();
                    log.writeProducerSnapshot();
                } catch (LogException e) {
                    LOG.warn("flush of {} at shutdown failed: {}", log.topicPartition(), e.getMessage());
                }
            }
        }
        runCheckpoints();
        for (Log log : logs.values()) {
            log.close();
        }
        for (Path dir : onlineDirs()) {
            try {
                Files.writeString(dir.resolve(CLEAN_SHUTDOWN_MARKER), "");
                CheckpointFile.fsyncDirectory(dir);
            } catch (IOException e) {
                LOG.warn("could not write the clean shutdown marker in {}: {}", dir, e.toString());
            }
        }
        logs.clear();
        logsPerDir.clear();
        started = false;
    }

    private static void deleteRecursively(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    LOG.warn("could not delete {}: {}", p, e.toString());
                }
            });
        } catch (IOException e) {
            LOG.warn("could not delete {}: {}", root, e.toString());
        }
    }
}
