package io.raftline.broker.group;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.raftline.protocol.group.GroupMetadataKey;
import io.raftline.protocol.group.GroupMetadataValue;
import io.raftline.protocol.group.OffsetCommitKey;
import io.raftline.protocol.group.OffsetCommitValue;
import io.raftline.record.CompressionType;
import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The records of {@code __consumer_offsets} (the layout is in group.proto): a key and a value, each a big-endian int16
 * version followed by a protobuf message. The key's version says what the record is (1: an offset commit, 2: a
 * group's metadata); a null value is a tombstone. Keys hold only their identifying fields, so equal keys are equal
 * bytes and compaction keeps the last record per key.
 */
public final class GroupRecords {

    public static final short OFFSET_COMMIT_KEY_VERSION = 1;
    public static final short GROUP_METADATA_KEY_VERSION = 2;
    public static final short OFFSET_COMMIT_VALUE_VERSION = 1;
    public static final short GROUP_METADATA_VALUE_VERSION = 1;

    private GroupRecords() {
    }

    /** One record to write: a key and a value, or a null value for a tombstone. */
    public record KeyValue(byte[] key, byte[] value) {
    }

    /** What a stored record says, decoded. */
    public sealed interface Decoded permits OffsetCommit, GroupMetadata {
        String group();
    }

    /** An offset commit; {@code value} is null for a tombstone. */
    public record OffsetCommit(String group, String topic, int partition, OffsetCommitValue value) implements Decoded {
    }

    /** A group's metadata; {@code value} is null for a tombstone (the group was deleted or expired). */
    public record GroupMetadata(String group, GroupMetadataValue value) implements Decoded {
    }

    public static KeyValue offsetCommit(String group, String topic, int partition, OffsetCommitValue value) {
        OffsetCommitKey key = OffsetCommitKey.newBuilder().setGroup(group).setTopic(topic).setPartition(partition).build();
        return new KeyValue(encode(OFFSET_COMMIT_KEY_VERSION, key),
            value == null ? null : encode(OFFSET_COMMIT_VALUE_VERSION, value));
    }

    public static KeyValue groupMetadata(String group, GroupMetadataValue value) {
        GroupMetadataKey key = GroupMetadataKey.newBuilder().setGroup(group).build();
        return new KeyValue(encode(GROUP_METADATA_KEY_VERSION, key),
            value == null ? null : encode(GROUP_METADATA_VALUE_VERSION, value));
    }

    /** One uncompressed batch holding {@code records} in order, every record stamped {@code timestampMs}. */
    public static ByteBuffer batch(List<KeyValue> records, long timestampMs) {
        if (records.isEmpty()) {
            throw new IllegalArgumentException("a batch needs at least one record");
        }
        int size = 0;
        for (KeyValue kv : records) {
            size += RecordBatchBuilder.estimateRecordSize(kv.key(), kv.value(), null);
        }
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0L,
            RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, RecordBatch.HEADER_SIZE + size);
        for (KeyValue kv : records) {
            builder.append(timestampMs, kv.key(), kv.value(), null);
        }
        return builder.build();
    }

    /**
     * Decodes a stored record.
     *
     * @throws GroupRecordException for a record without a key, a version this broker does not know, or bytes that do
     *                              not parse: the partition cannot be loaded without understanding every record
     */
    public static Decoded decode(Record record) {
        ByteBuffer key = record.key();
        if (key == null || key.remaining() < 2) {
            throw new GroupRecordException("record at offset " + record.offset() + " has no versioned key");
        }
        short keyVersion = key.getShort();
        ByteBuffer value = record.value();
        try {
            switch (keyVersion) {
                case OFFSET_COMMIT_KEY_VERSION -> {
                    OffsetCommitKey k = OffsetCommitKey.parseFrom(key);
                    OffsetCommitValue v = value == null ? null
                        : OffsetCommitValue.parseFrom(valueBody(value, OFFSET_COMMIT_VALUE_VERSION, record.offset()));
                    return new OffsetCommit(k.getGroup(), k.getTopic(), k.getPartition(), v);
                }
                case GROUP_METADATA_KEY_VERSION -> {
                    GroupMetadataKey k = GroupMetadataKey.parseFrom(key);
                    GroupMetadataValue v = value == null ? null
                        : GroupMetadataValue.parseFrom(valueBody(value, GROUP_METADATA_VALUE_VERSION, record.offset()));
                    return new GroupMetadata(k.getGroup(), v);
                }
                default -> throw new GroupRecordException("record at offset " + record.offset() + " has key version "
                    + keyVersion + ", which this broker does not know");
            }
        } catch (InvalidProtocolBufferException e) {
            throw new GroupRecordException("record at offset " + record.offset() + " does not parse: " + e.getMessage());
        }
    }

    private static ByteBuffer valueBody(ByteBuffer value, short expected, long offset) {
        if (value.remaining() < 2) {
            throw new GroupRecordException("record at offset " + offset + " has a value without a version");
        }
        short version = value.getShort();
        if (version != expected) {
            throw new GroupRecordException("record at offset " + offset + " has value version " + version
                + ", which this broker does not know");
        }
        return value;
    }

    private static byte[] encode(short version, MessageLite message) {
        byte[] body = message.toByteArray();
        byte[] out = new byte[2 + body.length];
        out[0] = (byte) (version >> 8);
        out[1] = (byte) version;
        System.arraycopy(body, 0, out, 2, body.length);
        return out;
    }
}
