package io.raftline.broker.kafka;

import io.raftline.broker.log.FetchDataInfo;
import io.raftline.broker.log.FileSlice;
import java.util.List;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * A fetch answer's records as the ranges of segment files that hold them, not read into memory: {@link ResponseFrame}
 * sends them from the files (zero-copy) or reads them straight into the answer's buffer. Kafka's generated classes
 * count them as zero-copy bytes and hand them to the {@code Writable} as they are.
 */
final class StoredRecords implements BaseRecords {

    private final List<FileSlice> slices;
    private final int size;
    private final long records;

    StoredRecords(FetchDataInfo data) {
        this.slices = List.copyOf(data.slices());
        this.size = data.sizeInBytes();
        this.records = data.recordCount();
    }

    List<FileSlice> slices() {
        return slices;
    }

    /** The records in the batches, as their headers count them. */
    long recordCount() {
        return records;
    }

    @Override
    public int sizeInBytes() {
        return size;
    }

    /** Kafka's network layer never sends these: the listener writes them with {@link ResponseFrame}. */
    @Override
    public RecordsSend<StoredRecords> toSend() {
        throw new UnsupportedOperationException("stored records are written by ResponseFrame, not by a Kafka Send");
    }
}
