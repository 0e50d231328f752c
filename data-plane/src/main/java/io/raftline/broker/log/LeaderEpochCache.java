package io.raftline.broker.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The partition's {@code leader-epoch-checkpoint}: for each leader epoch, the first offset written in it. Lines are
 * {@code <epoch> <startOffset>} (format in {@link CheckpointFile}); epochs and start offsets strictly rise. Followers
 * ask the leader "end offset for epoch E" after a leader change and truncate to it (as Kafka's KIP-101).
 *
 * <p>Written only by the owning log's writer (under its lock); persisted on every change, before the change is
 * visible. Lookups may come from any thread and are synchronized on this object.
 */
public final class LeaderEpochCache {

    static final String FILE_NAME = "leader-epoch-checkpoint";

    /** One epoch and where it started. */
    public record EpochEntry(int epoch, long startOffset) {
    }

    private final Path file;
    private final List<EpochEntry> entries = new ArrayList<>();

    LeaderEpochCache(Path partitionDir) throws IOException {
        this.file = partitionDir.resolve(FILE_NAME);
        for (String line : CheckpointFile.read(file)) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length != 2) {
                throw new IOException(file + ": bad line '" + line + "'");
            }
            try {
                EpochEntry e = new EpochEntry(Integer.parseInt(parts[0]), Long.parseLong(parts[1]));
                if (!entries.isEmpty() && (e.epoch() <= latest().epoch() || e.startOffset() < latest().startOffset())) {
                    throw new IOException(file + ": entries out of order at '" + line + "'");
                }
                entries.add(e);
            } catch (NumberFormatException ex) {
                throw new IOException(file + ": bad line '" + line + "'");
            }
        }
    }

    private EpochEntry latest() {
        return entries.get(entries.size() - 1);
    }

    /**
     * Records that {@code epoch} starts at {@code startOffset}. An epoch not above the latest is ignored. Entries
     * starting at or after {@code startOffset} are dropped first (they were written by a leader we now contradict).
     */
    public synchronized void assign(int epoch, long startOffset) throws IOException {
        if (epoch < 0 || (!entries.isEmpty() && epoch <= latest().epoch())) {
            return;
        }
        entries.removeIf(e -> e.startOffset() >= startOffset);
        entries.add(new EpochEntry(epoch, startOffset));
        persist();
    }

    /** The latest epoch, or -1 when none is known. */
    public synchronized int latestEpoch() {
        return entries.isEmpty() ? -1 : latest().epoch();
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
        if (epoch < 0 || entries.isEmpty()) {
            return Optional.empty();
        }
        if (epoch == latest().epoch()) {
            return Optional.of(new EpochEndOffset(epoch, logEndOffset));
        }
        if (epoch > latest().epoch()) {
            return Optional.empty();
        }
        EpochEntry floor = null;
        for (EpochEntry e : entries) {
            if (e.epoch() > epoch) {
                return Optional.of(new EpochEndOffset(floor == null ? epoch : floor.epoch(), e.startOffset()));
            }
            floor = e;
        }
        throw new IllegalStateException("unreachable: epoch " + epoch + " below latest " + latest());
    }

    /** Drops epochs starting at or after {@code endOffset} (the log was truncated there). */
    public synchronized void truncateFromEnd(long endOffset) throws IOException {
        if (entries.removeIf(e -> e.startOffset() >= endOffset)) {
            persist();
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
        persist();
    }

    /** Forgets everything (the log was emptied). */
    public synchronized void clear() throws IOException {
        entries.clear();
        persist();
    }

    public synchronized List<EpochEntry> entries() {
        return List.copyOf(entries);
    }

    private void persist() throws IOException {
        List<String> lines = new ArrayList<>(entries.size());
        for (EpochEntry e : entries) {
            lines.add(e.epoch() + " " + e.startOffset());
        }
        CheckpointFile.write(file, lines);
    }
}
