package io.raftline.broker.log;

import io.raftline.record.CompressionType;
import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.Records;
import io.raftline.record.TimestampType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Builds batches and reads records back for the log tests. */
final class TestBatches {

    private TestBatches() {
    }

    /** A batch of {@code count} records with values "v-<tag>-<i>" and a given timestamp. */
    static ByteBuffer batch(int count, String tag, long timestamp) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1, 256);
        for (int i = 0; i < count; i++) {
            b.append(timestamp, null, ("v-" + tag + "-" + i).getBytes(StandardCharsets.UTF_8), null);
        }
        return b.build();
    }

    /** A batch of keyed records (null value = tombstone), for compaction tests. */
    static ByteBuffer keyed(long timestamp, String... keyValues) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.LZ4, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1, 256);
        for (int i = 0; i < keyValues.length; i += 2) {
            byte[] value = keyValues[i + 1] == null ? null : keyValues[i + 1].getBytes(StandardCharsets.UTF_8);
            b.append(timestamp, keyValues[i].getBytes(StandardCharsets.UTF_8), value, null);
        }
        return b.build();
    }

    static ByteBuffer sized(int records, int valueBytes, long timestamp) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1,
            records * (valueBytes + 16));
        byte[] value = new byte[valueBytes];
        for (int i = 0; i < records; i++) {
            b.append(timestamp, null, value, null);
        }
        return b.build();
    }

    /** Every record in a fetched slice, in order, as offset → value string. */
    static List<Map.Entry<Long, String>> records(ByteBuffer buf) {
        List<Map.Entry<Long, String>> out = new ArrayList<>();
        for (RecordBatch batch : Records.batches(buf)) {
            batch.ensureValid();
            for (Record r : batch.records()) {
                out.add(Map.entry(r.offset(), r.hasValue() ? StandardCharsets.UTF_8.decode(r.value()).toString() : "null"));
            }
        }
        return out;
    }

    static List<Map.Entry<Long, String>> records(FetchDataInfo info) {
        return records(info.readIntoBuffer());
    }

    static String key(Record r) {
        return StandardCharsets.UTF_8.decode(r.key()).toString();
    }
}
