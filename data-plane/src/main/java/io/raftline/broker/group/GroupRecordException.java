package io.raftline.broker.group;

/** A record of {@code __consumer_offsets} this broker cannot read: loading the partition stops on it. */
public final class GroupRecordException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public GroupRecordException(String message) {
        super(message);
    }
}
