package io.raftline.broker.log;

import io.raftline.common.Time;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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
        byte[] storedId = PartitionMetadataFile.read(dir);
        if (topicId != null && storedId != null && !Arrays.equals(topicId, storedId)) {
            throw new IOException(dir + " belongs to topic id " + PartitionMetadataFile.encode(storedId) + ", not "
                + PartitionMetadataFile.encode(topicId));
        }
        if (topicId != null && storedId == null) {
            PartitionMetadataFile.write(dir, topicId);
        }
        byte[] id = topicId != null ? topicId : storedId;

        TreeSet<Long> bases = scanAndClean(dir);
        long now = time.milliseconds();
        ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();
        for (long base : bases) {
            segments.put(base, LogSegment.open(dir, base, config, now));
        }
        String name = topic + "-" + partition;
        boolean recovered = false;
        if (!segments.isEmpty()) {
            Long recoverFrom = cleanShutdown ? null : segments.floorKey(recoveryPoint);
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
        LeaderEpochCache epochs = new LeaderEpochCache(dir);
        epochs.truncateFromEnd(active.nextOffset());
        epochs.truncateFromStart(segments.firstKey());
        long rp = recovered ? active.nextOffset() : Math.min(recoveryPoint, active.nextOffset());
        // A producer snapshot past the recovered end (its batches were cut as a torn tail) describes batches that are gone.
        long recoveredEnd = active.nextOffset();
        ProducerSnapshotFiles.deleteIf(dir, o -> o > recoveredEnd);
        Log log = new Log(topic, partition, id, dir, config, time, scheduler, handler, epochs, segments, rp);
        LOG.debug("{}: loaded {} (recovered: {})", name, log, recovered);
        return log;
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
