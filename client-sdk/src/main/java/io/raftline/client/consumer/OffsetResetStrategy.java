package io.raftline.client.consumer;

import java.util.Locale;

/** What {@code auto.offset.reset} says to do when a partition has no valid position. */
public enum OffsetResetStrategy {
    /** Start at the log start offset. */
    EARLIEST,
    /** Start at the high watermark: only new records. */
    LATEST,
    /** Fail with {@code NoOffsetForPartitionException}. */
    NONE;

    /** Parses the config value. */
    public static OffsetResetStrategy forConfig(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
