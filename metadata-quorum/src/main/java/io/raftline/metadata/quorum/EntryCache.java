package io.raftline.metadata.quorum;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The most recent applied entries, in index order, kept in memory so that any quorum node can stream them to
 * brokers without reading Ratis's log. Bounded: a fetcher asking for an index older than the oldest kept entry
 * is sent a snapshot (the current image) instead. One writer (the state machine's apply thread); readers are the
 * metadata streams; all access is synchronized on this object.
 */
final class EntryCache {

    private final int capacity;
    private final ArrayDeque<CommittedEntry> entries = new ArrayDeque<>();

    EntryCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive");
        }
        this.capacity = capacity;
    }

    synchronized void add(CommittedEntry e) {
        if (!entries.isEmpty() && entries.peekLast().index() >= e.index()) {
            throw new IllegalStateException("entries go back: " + entries.peekLast().index() + " then " + e.index());
        }
        entries.addLast(e);
        while (entries.size() > capacity) {
            entries.removeFirst();
        }
    }

    /** Forgets everything (after a snapshot was installed: the entries before it no longer connect). */
    synchronized void clear() {
        entries.clear();
    }

    /**
     * Up to {@code max} entries with index >= {@code fromIndex}, or null when entries at or after
     * {@code fromIndex} may have been dropped (the caller must send a snapshot). {@code lastIndex} is the index of
     * the image the caller holds: entries after it are all here or the answer is null.
     */
    synchronized List<CommittedEntry> from(long fromIndex, int max, long lastIndex) {
        List<CommittedEntry> out = new ArrayList<>();
        if (fromIndex > lastIndex) {
            return out;
        }
        if (entries.isEmpty() || entries.peekFirst().index() > fromIndex) {
            // Every applied index is added here, so a missing start means it was dropped or came from a snapshot.
            return null;
        }
        for (CommittedEntry e : entries) {
            if (e.index() >= fromIndex) {
                out.add(e);
                if (out.size() >= max) {
                    break;
                }
            }
        }
        return out;
    }
}
