package io.raftline.broker.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The partition's {@code leader-epoch-checkpoint}: for each leader epoch, the first offset written in it. Lines are
 * {@code <epoch> <startOffset>} (format in {@link CheckpointFile}); epochs and start offsets strictly rise. Followers
 * ask the leader "end offset for epoch E" after a leader change and truncate to it (as Kafka's KIP-101).
 *
 * <p>Durability (as Kafka since 3.7): a new epoch ({@link #assign}, on the produce path and on replica fetcher
 * threads) replaces the file atomically but without fsync; {@link #flush} makes it durable, and the owning log calls
 * it whenever it flushes, before it raises its recovery point. So the durable file is always right for every offset
 * below the recovery point, and the loader rebuilds the rest from the epochs stamped in the recovered batches
 * ({@link #repair}); a file that a crash left empty or torn is rebuilt from the whole log. Truncations are rare and
 * are written durably at once.
 *
 * <p>Written only by the owning log's writer (under its lock) or by its flush; lookups may come from any thread. All
 * are synchronized on this object (a flush holds it for its fsync, so no rename can slip between the file's fsync and
 * its directory's), except {@link #latestEpoch}, asked on every append, which reads a volatile copy and so never
 * waits for a flush's fsync.
 */
public final class LeaderEpochCache {

    static final String FILE_NAME = "leader-epoch-checkpoint";

    /** One epoch and where it started. */
    public record EpochEntry(int epoch, long startOffset) {
    }

    private final Path file;
    private final List<EpochEntry> entries = new ArrayList<>();
    /** The file holds a version written without fsync. */
    private boolean unsynced;
    /** The latest entry's epoch, -1 if none: set after every change of {@code entries}. */
    private volatile int latestEpoch = -1;

    /** Reads the checkpoint in {@code partitionDir} (empty if there is none); fails on a malformed one. */
    LeaderEpochCache(Path partitionDir) throws IOException {
        this(partitionDir, readEntries(partitionDir.resolve(FILE_NAME)));
    }

    private LeaderEpochCache(Path partitionDir, List<EpochEntry> initial) {
        this.file = partitionDir.resolve(FILE_NAME);
        entries.addAll(initial);
        entriesChanged();
    }

    private void entriesChanged() {
        latestEpoch = entries.isEmpty() ? -1 : latest().epoch();
    }

    /** A cache with no entries for {@code partitionDir}, whatever its file holds (the loader then rebuilds it). */
    static LeaderEpochCache empty(Path partitionDir) {
        return new LeaderEpochCache(partitionDir, List.of());
    }

    static boolean fileExists(Path partitionDir) {
        return Files.exists(partitionDir.resolve(FILE_NAME));
    }

    private static List<EpochEntry> readEntries(Path file) throws IOException {
        List<EpochEntry> out = new ArrayList<>();
        for (String line : CheckpointFile.read(file)) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length != 2) {
                throw new IOException(file + ": bad line '" + line + "'");
            }
            try {
                EpochEntry e = new EpochEntry(Integer.parseInt(parts[0]), Long.parseLong(parts[1]));
                EpochEntry last = out.isEmpty() ? null : out.get(out.size() - 1);
                if (e.epoch() < 0 || e.startOffset() < 0
                    || (last != null && (e.epoch() <= last.epoch() || e.startOffset() < last.startOffset()))) {
                    throw new IOException(file + ": entries out of order at '" + line + "'");
                }
                out.add(e);
            } catch (NumberFormatException ex) {
                throw new IOException(file + ": bad line '" + line + "'");
            }
        }
        return out;
    }

    private EpochEntry latest() {
        return entries.get(entries.size() - 1);
    }

    /**
     * Records that {@code epoch} starts at {@code startOffset}. An epoch not above the latest is ignored. Entries
     * starting at or after {@code startOffset} are dropped first (they were written by a leader we now contradict).
     * The file is replaced without fsync: durable at the next {@link #flush}.
     */
    public synchronized void assign(int epoch, long startOffset) throws IOException {
        if (!assignInMemory(epoch, startOffset)) {
            return;
        }
        persist(false);
    }

    private boolean assignInMemory(int epoch, long startOffset) {
        List<EpochEntry> next = assigned(entries, epoch, startOffset);
        if (next == entries) {
            return false;
        }
        entries.clear();
        entries.addAll(next);
        entriesChanged();
        return true;
    }

    /**
     * The rule of {@link #assign}, as a pure function: {@code entries} with {@code epoch} starting at
     * {@code startOffset} (entries starting at or after it dropped first), or {@code entries} itself when the epoch
     * is negative or not above the latest. In-memory logs (the replication simulation) keep their epochs with it.
     */
    public static List<EpochEntry> assigned(List<EpochEntry> entries, int epoch, long startOffset) {
        if (epoch < 0 || (!entries.isEmpty() && epoch <= entries.get(entries.size() - 1).epoch())) {
            return entries;
        }
        List<EpochEntry> next = new ArrayList<>();
        for (EpochEntry e : entries) {
            if (e.startOffset() < startOffset) {
                next.add(e);
            }
        }
        next.add(new EpochEntry(epoch, startOffset));
        return next;
    }

    /**
     * Makes the file durable if it holds a version written without fsync (the log is flushing): fsyncs the file and
     * then its directory. Returns whether it did (so the directory was fsynced).
     */
    public synchronized boolean flush() throws IOException {
        if (!unsynced) {
            return false;
        }
        CheckpointFile.sync(file);
        unsynced = false;
        return true;
    }

    /** Whether the file holds a version not yet made durable. */
    synchronized boolean isUnsynced() {
        return unsynced;
    }

    /**
     * After crash recovery: the entries are trusted below {@code fromOffset} (the start of the recovered tail, at or
     * below the recovery point) and {@code seen} are the epoch changes in the batches from there on, in log order
     * ({@code <epoch, base offset of its first batch>}). Entries starting at or after {@code fromOffset} are replaced
     * by {@code seen}. Returns false, changing nothing, if {@code seen} contradicts the kept entries (an epoch lower
     * than the latest kept one): the caller then rebuilds the cache from the whole log. The result is written
     * durably by the caller's {@link #flush}.
     */
    synchronized boolean repair(long fromOffset, List<EpochEntry> seen) throws IOException {
        List<EpochEntry> kept = new ArrayList<>();
        for (EpochEntry e : entries) {
            if (e.startOffset() < fromOffset) {
                kept.add(e);
            }
        }
        int latestKept = kept.isEmpty() ? -1 : kept.get(kept.size() - 1).epoch();
        for (EpochEntry e : seen) {
            if (e.epoch() >= 0 && e.epoch() < latestKept) {
                return false;
            }
        }
        List<EpochEntry> before = List.copyOf(entries);
        entries.clear();
        entries.addAll(kept);
        entriesChanged();
        for (EpochEntry e : seen) {
            assignInMemory(e.epoch(), e.startOffset());
        }
        if (!entries.equals(before)) {
            persist(false);
        }
        return true;
    }

    /** The latest epoch, or -1 when none is known. */
    public int latestEpoch() {
        return latestEpoch;
    }

    /** The first offset of an epoch, if it is known. */
    public synchronized Optional<Long> startOffsetFor(int epoch) {
        for (EpochEntry e : entries) {
            if (e.epoch() == epoch) {
                return Optional.of(e.startOffset());
            }
        }
        return Optional.empty();
    }

    /**
     * The largest epoch <= {@code epoch} and where it ended: the start of the next higher epoch, or the log end
     * offset for the latest epoch. Asked for an epoch below every known one, answers that epoch with the first
     * known start offset (the follower then truncates there). Empty if the cache is empty or the epoch is above the
     * latest (the asker knows more than we do), or the epoch is negative.
     */
    public synchronized Optional<EpochEndOffset> endOffsetFor(int epoch, long logEndOffset) {
        return endOffsetFor(entries, epoch, logEndOffset);
    }

    /** {@link #endOffsetFor(int, long)} over {@code entries}, as a pure function. */
    public static Optional<EpochEndOffset> endOffsetFor(List<EpochEntry> entries, int epoch, long logEndOffset) {
        if (epoch < 0 || entries.isEmpty()) {
            return Optional.empty();
        }
        EpochEntry latest = entries.get(entries.size() - 1);
        if (epoch == latest.epoch()) {
            return Optional.of(new EpochEndOffset(epoch, logEndOffset));
        }
        if (epoch > latest.epoch()) {
            return Optional.empty();
        }
        EpochEntry floor = null;
        for (EpochEntry e : entries) {
            if (e.epoch() > epoch) {
                return Optional.of(new EpochEndOffset(floor == null ? epoch : floor.epoch(), e.startOffset()));
            }
            floor = e;
        }
        throw new IllegalStateException("unreachable: epoch " + epoch + " below latest " + latest);
    }

    /** Drops epochs starting at or after {@code endOffset} (the log was truncated there). */
    public synchronized void truncateFromEnd(long endOffset) throws IOException {
        if (entries.removeIf(e -> e.startOffset() >= endOffset)) {
            entriesChanged();
            persist(true);
        }
    }

    /** Moves the first kept epoch's start up to {@code startOffset} and drops older ones (the log start moved). */
    public synchronized void truncateFromStart(long startOffset) throws IOException {
        int lastBelow = -1;
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).startOffset() <= startOffset) {
                lastBelow = i;
            }
        }
        if (lastBelow < 0 || (lastBelow == 0 && entries.get(0).startOffset() == startOffset)) {
            return;
        }
        EpochEntry kept = new EpochEntry(entries.get(lastBelow).epoch(), startOffset);
        entries.subList(0, lastBelow + 1).clear();
        entries.add(0, kept);
        entriesChanged();
        persist(true);
    }

    /** Forgets everything (the log was emptied). */
    public synchronized void clear() throws IOException {
        entries.clear();
        entriesChanged();
        persist(true);
    }

    public synchronized List<EpochEntry> entries() {
        return List.copyOf(entries);
    }

    private void persist(boolean durable) throws IOException {
        List<String> lines = new ArrayList<>(entries.size());
        for (EpochEntry e : entries) {
            lines.add(e.epoch() + " " + e.startOffset());
        }
        if (durable) {
            CheckpointFile.write(file, lines);
            unsynced = false;
        } else {
            CheckpointFile.writeUnsynced(file, lines);
            unsynced = true;
        }
    }
}
