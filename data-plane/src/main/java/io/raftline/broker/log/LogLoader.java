package io.raftline.broker.log;

import io.raftline.common.Time;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a partition directory and brings it to a consistent state before the {@link Log} serves it:
 * <ol>
 *   <li>leftovers of interrupted work are removed: {@code *.deleted} (retention/truncation), {@code *.cleaned}
 *       (an unfinished compaction: the old segment is still in place), {@code *.tmp}, index files without a log;</li>
 *   <li>after a clean shutdown nothing is read but the tail of the last segment after its last index entry;</li>
 *   <li>otherwise every segment from the one holding the recovery point on is recovered: each batch is checked
 *       (whole, magic, CRC32C, rising offsets) and the indexes rebuilt; at the first bad batch the file is cut and
 *       every later segment deleted, so the log keeps exactly the valid prefix. Segments before the recovery point
 *       are not read (start time does not grow with the log) unless their index is missing or insane, in which case
 *       that one segment is rebuilt.</li>
 * </ol>
 */
final class LogLoader {

    private static final Logger LOG = LoggerFactory.getLogger(LogLoader.class);

    private LogLoader() {
    }

    static Log load(Path dir, String topic, int partition, byte[] topicId, LogConfig config, long recoveryPoint,
                    boolean cleanShutdown, Time time, ScheduledExecutorService scheduler, Log.StorageErrorHandler handler)
        throws IOException {
        Files.createDirectories(dir);
        String name = topic + "-" + partition;
        byte[] storedId;
        try {
            storedId = PartitionMetadataFile.read(dir);
        } catch (IOException e) {
            // Only a crash before the log's first flush can leave it torn (see PartitionMetadataFile): the log then
            // holds nothing durable and, without a topic id, is deleted as a stray by the broker.
            LOG.warn("{}: {}; the log's topic id is unknown", name, e.getMessage());
            storedId = null;
        }
        if (topicId != null && storedId != null && !Arrays.equals(topicId, storedId)) {
            throw new IOException(dir + " belongs to topic id " + PartitionMetadataFile.encode(storedId) + ", not "
                + PartitionMetadataFile.encode(topicId));
        }
        boolean metadataUnsynced = false;
        if (topicId != null && storedId == null) {
            PartitionMetadataFile.writeUnsynced(dir, topicId);
            metadataUnsynced = true;
        }
        byte[] id = topicId != null ? topicId : storedId;

        TreeSet<Long> bases = scanAndClean(dir);
        long now = time.milliseconds();
        ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();
        for (long base : bases) {
            segments.put(base, LogSegment.open(dir, base, config, now));
        }
        boolean recovered = false;
        Long recoverFrom = null;
        if (!segments.isEmpty()) {
            recoverFrom = cleanShutdown ? null : segments.floorKey(recoveryPoint);
            if (!cleanShutdown && recoverFrom == null) {
                recoverFrom = segments.firstKey();
            }
            recovered = recoverFrom != null;
            List<LogSegment> ordered = new ArrayList<>(segments.values());
            for (int i = 0; i < ordered.size(); i++) {
                LogSegment s = ordered.get(i);
                boolean last = i == ordered.size() - 1;
                boolean mustRecover = (recoverFrom != null && s.baseOffset() >= recoverFrom) || !s.indexesAreSane();
                int cut = 0;
                if (mustRecover) {
                    cut = s.recover();
                } else if (last) {
                    try {
                        s.loadTail();
                    } catch (IOException e) {
                        LOG.warn("{}: {}; recovering the last segment", name, e.getMessage());
                        cut = s.recover();
                    }
                }
                if (last) {
                    break;
                }
                boolean nextOverlaps = mustRecover && ordered.get(i + 1).baseOffset() < s.nextOffset();
                if (cut > 0 || nextOverlaps) {
                    LOG.warn("{}: {} in segment {}: cut {} bytes and deleted {} later segment(s)", name,
                        cut > 0 ? "torn or corrupt batch" : "overlapping offsets", s.baseOffset(), cut, ordered.size() - i - 1);
                    for (LogSegment dropped : ordered.subList(i + 1, ordered.size())) {
                        segments.remove(dropped.baseOffset());
                        dropped.deleteFiles();
                    }
                    recovered = true;
                    break;
                }
                s.offsetIndex().trimToEntries();
                s.timeIndex().trimToEntries();
            }
        }
        if (segments.isEmpty()) {
            long start = Math.max(0, cleanShutdown ? recoveryPoint : 0);
            segments.put(start, LogSegment.create(dir, start, config, now));
        }
        LogSegment active = segments.lastEntry().getValue();
        active.onBecomeActive(config.segmentIndexBytes());
        if (recovered) {
            for (LogSegment s : segments.tailMap(segments.floorKey(Math.max(recoveryPoint, segments.firstKey())), true).values()) {
                s.flush();
            }
        }
        LeaderEpochCache epochs = loadEpochs(dir, name, segments, recoverFrom);
        epochs.truncateFromEnd(active.nextOffset());
        epochs.truncateFromStart(segments.firstKey());
        epochs.flush(); // a repaired cache: durable before the recovery point moves to the log end below
        long rp = recovered ? active.nextOffset() : Math.min(recoveryPoint, active.nextOffset());
        // A producer snapshot past the recovered end (its batches were cut as a torn tail) describes batches that are gone.
        long recoveredEnd = active.nextOffset();
        ProducerSnapshotFiles.deleteIf(dir, o -> o > recoveredEnd);
        Log log = new Log(topic, partition, id, dir, config, time, scheduler, handler, epochs, segments, rp, metadataUnsynced);
        LOG.debug("{}: loaded {} (recovered: {})", name, log, recovered);
        return log;
    }

    /**
     * The epoch cache, made consistent with the log. The checkpoint is durable for every offset below the recovery
     * point (it is fsynced with each log flush) but may be stale, empty or torn past it after a crash, so: after an
     * unclean stop its entries from {@code recoverFrom} (the first recovered segment) on are replaced by the epoch
     * changes stamped in the batches there; a missing, unreadable or contradicted checkpoint of a non-empty log is
     * rebuilt from every batch. Batches hold their leader epoch in the header, so this reads headers only.
     */
    private static LeaderEpochCache loadEpochs(Path dir, String name, ConcurrentSkipListMap<Long, LogSegment> segments,
                                               Long recoverFrom) throws IOException {
        boolean hasData = segments.values().stream().anyMatch(s -> !s.isEmpty());
        if (!hasData) {
            LeaderEpochCache stored = LeaderEpochCache.fileExists(dir) ? readOrNull(dir, name) : null;
            return stored != null ? stored : LeaderEpochCache.empty(dir);
        }
        LeaderEpochCache epochs = LeaderEpochCache.fileExists(dir) ? readOrNull(dir, name) : null;
        if (epochs != null && recoverFrom == null) {
            return epochs;
        }
        if (epochs != null && (epochs.entries().size() > 0 || recoverFrom.equals(segments.firstKey()))) {
            if (epochs.repair(recoverFrom, epochChanges(segments.tailMap(recoverFrom, true).values()))) {
                return epochs;
            }
            LOG.warn("{}: {} contradicts the recovered batches; rebuilding it from the whole log", name, LeaderEpochCache.FILE_NAME);
        } else {
            LOG.warn("{}: {} is missing or unreadable; rebuilding it from the whole log", name, LeaderEpochCache.FILE_NAME);
        }
        LeaderEpochCache rebuilt = LeaderEpochCache.empty(dir);
        if (!rebuilt.repair(segments.firstKey(), epochChanges(segments.values()))) {
            throw new IllegalStateException("an empty epoch cache cannot contradict anything");
        }
        return rebuilt;
    }

    private static LeaderEpochCache readOrNull(Path dir, String name) {
        try {
            return new LeaderEpochCache(dir);
        } catch (IOException e) {
            LOG.warn("{}: unreadable epoch checkpoint: {}", name, e.getMessage());
            return null;
        }
    }

    /** Where each epoch first appears in the batches of {@code segments} (in offset order), as rising epochs. */
    private static List<LeaderEpochCache.EpochEntry> epochChanges(Collection<LogSegment> segments) throws IOException {
        List<LeaderEpochCache.EpochEntry> out = new ArrayList<>();
        for (LogSegment s : segments) {
            s.forEachBatchEpoch((base, epoch) -> {
                if (epoch >= 0 && (out.isEmpty() || epoch != out.get(out.size() - 1).epoch())) {
                    out.add(new LeaderEpochCache.EpochEntry(epoch, base));
                }
            });
        }
        return out;
    }

    /** Deletes leftovers and returns the base offsets of the segments (from their {@code .log} files). */
    private static TreeSet<Long> scanAndClean(Path dir) throws IOException {
        TreeSet<Long> bases = new TreeSet<>();
        List<Path> indexes = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String n = f.getFileName().toString();
                if (n.endsWith(LogSegment.DELETED_SUFFIX) || n.endsWith(LogSegment.CLEANED_SUFFIX) || n.endsWith(".tmp")) {
                    Files.deleteIfExists(f);
                } else if (n.endsWith(LogSegment.LOG_SUFFIX)) {
                    Long base = parseBase(n, LogSegment.LOG_SUFFIX);
                    if (base != null) {
                        bases.add(base);
                    }
                } else if (n.endsWith(LogSegment.INDEX_SUFFIX) || n.endsWith(LogSegment.TIME_INDEX_SUFFIX)) {
                    indexes.add(f);
                }
            }
        }
        for (Path f : indexes) {
            String n = f.getFileName().toString();
            Long base = parseBase(n, n.endsWith(LogSegment.INDEX_SUFFIX) ? LogSegment.INDEX_SUFFIX : LogSegment.TIME_INDEX_SUFFIX);
            if (base == null || !bases.contains(base)) {
                Files.deleteIfExists(f);
            }
        }
        return bases;
    }

    private static Long parseBase(String fileName, String suffix) {
        String digits = fileName.substring(0, fileName.length() - suffix.length());
        if (digits.length() != 20 || !digits.chars().allMatch(Character::isDigit)) {
            return null;
        }
        return Long.parseLong(digits);
    }
}
