package io.raftline.broker.group;

import io.raftline.protocol.group.GroupMetadataValue;
import io.raftline.protocol.group.OffsetCommitValue;
import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Replays the records of one {@code __consumer_offsets} partition, in log order, into the last state of every group
 * it holds: later records win, tombstones erase. Pure: it touches nothing but itself.
 */
final class GroupLoader {

    /** What the log says about one group. */
    static final class LoadedGroup {
        GroupMetadataValue metadata;
        final TreeMap<Group.TopicPartitionKey, CommittedOffset> offsets = new TreeMap<>();

        boolean isEmpty() {
            return metadata == null && offsets.isEmpty();
        }
    }

    private final Map<String, LoadedGroup> groups = new HashMap<>();
    private long nextOffset;
    private long records;

    /** Reads every whole batch in {@code batches}; a batch with a bad CRC stops the load. */
    void accept(ByteBuffer batches) {
        for (RecordBatch batch : Records.batches(batches)) {
            batch.ensureValid();
            for (Record r : batch.records()) {
                apply(GroupRecords.decode(r), r.offset());
                records++;
            }
            nextOffset = batch.nextOffset();
        }
    }

    private void apply(GroupRecords.Decoded d, long offset) {
        if (d instanceof GroupRecords.OffsetCommit oc) {
            Group.TopicPartitionKey key = new Group.TopicPartitionKey(oc.topic(), oc.partition());
            if (oc.value() == null) {
                LoadedGroup g = groups.get(oc.group());
                if (g != null) {
                    g.offsets.remove(key);
                    dropIfEmpty(oc.group(), g);
                }
            } else {
                OffsetCommitValue v = oc.value();
                groups.computeIfAbsent(oc.group(), k -> new LoadedGroup()).offsets.put(key,
                    new CommittedOffset(v.getOffset(), v.getLeaderEpoch(), v.getMetadata(), v.getCommitTimestampMs(), offset));
            }
        } else if (d instanceof GroupRecords.GroupMetadata gm) {
            if (gm.value() == null) {
                // A group tombstone: the group was deleted or expired, offsets included.
                groups.remove(gm.group());
            } else {
                groups.computeIfAbsent(gm.group(), k -> new LoadedGroup()).metadata = gm.value();
            }
        }
    }

    private void dropIfEmpty(String group, LoadedGroup g) {
        if (g.isEmpty()) {
            groups.remove(group);
        }
    }

    Map<String, LoadedGroup> groups() {
        return groups;
    }

    /** The offset after the last batch read. */
    long nextOffset() {
        return nextOffset;
    }

    long recordCount() {
        return records;
    }
}
