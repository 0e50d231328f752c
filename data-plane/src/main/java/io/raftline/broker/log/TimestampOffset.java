package io.raftline.broker.log;

/** A record found by timestamp: its timestamp and offset (ListOffsets by time). */
public record TimestampOffset(long timestamp, long offset) {
}
