package io.raftline.client.admin;

/** Options of {@link Admin#listTopics(ListTopicsOptions)}. */
public final class ListTopicsOptions {

    private boolean listInternal;

    /** Include internal topics such as {@code __consumer_offsets} (excluded by default, as in Kafka). */
    public ListTopicsOptions listInternal(boolean value) {
        this.listInternal = value;
        return this;
    }

    /** Whether internal topics are listed. */
    public boolean shouldListInternal() {
        return listInternal;
    }
}
