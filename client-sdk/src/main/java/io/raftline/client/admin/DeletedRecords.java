package io.raftline.client.admin;

/**
 * One partition's answer to {@link Admin#deleteRecords}: its low watermark, the least log start offset over the leader
 * and its in-sync followers once they have deleted the records.
 */
public final class DeletedRecords {

    private final long lowWatermark;

    public DeletedRecords(long lowWatermark) {
        this.lowWatermark = lowWatermark;
    }

    /** No replica that may lead the partition serves an offset below this. */
    public long lowWatermark() {
        return lowWatermark;
    }

    @Override
    public String toString() {
        return "DeletedRecords(lowWatermark=" + lowWatermark + ")";
    }
}
