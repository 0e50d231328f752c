package io.raftline.client.admin;

/** One partition's answer to {@link Admin#deleteRecords}: its low watermark, the leader's new log start offset. */
public final class DeletedRecords {

    private final long lowWatermark;

    public DeletedRecords(long lowWatermark) {
        this.lowWatermark = lowWatermark;
    }

    /** The first offset still readable in the partition. */
    public long lowWatermark() {
        return lowWatermark;
    }

    @Override
    public String toString() {
        return "DeletedRecords(lowWatermark=" + lowWatermark + ")";
    }
}
