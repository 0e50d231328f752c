package io.raftline.record;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Small readers shared by the codec tests. */
final class RecordBatchRoundTripTestHelper {

    private RecordBatchRoundTripTestHelper() {
    }

    static Record[] records(ByteBuffer oneBatch) {
        List<Record> out = new ArrayList<>();
        RecordBatch.view(oneBatch, oneBatch.position()).records().forEach(out::add);
        return out.toArray(new Record[0]);
    }
}
