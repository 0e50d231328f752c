package io.raftline.client.admin;

/** What {@link Admin#deleteRecords} deletes from one partition: every record below an offset (as Kafka's). */
public final class RecordsToDelete {

    private final long offset;

    private RecordsToDelete(long offset) {
        this.offset = offset;
    }

    /** The records below {@code offset}; {@code -1} means below the high watermark (every committed record). */
    public static RecordsToDelete beforeOffset(long offset) {
        return new RecordsToDelete(offset);
    }

    public long beforeOffset() {
        return offset;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RecordsToDelete r && r.offset == offset;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(offset);
    }

    @Override
    public String toString() {
        return "RecordsToDelete(offset=" + offset + ")";
    }
}
