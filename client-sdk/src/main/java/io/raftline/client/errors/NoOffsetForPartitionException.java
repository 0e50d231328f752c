package io.raftline.client.errors;

/** A partition has no position and {@code auto.offset.reset} is {@code none}. */
public class NoOffsetForPartitionException extends InvalidOffsetException {

    /** Creates the exception with a message naming the partitions. */
    public NoOffsetForPartitionException(String message) {
        super(message);
    }
}
