package io.raftline.client.common;

/** What a record's timestamp means. */
public enum TimestampType {
    /** No timestamp (never produced by Raftline, kept for Kafka compatibility). */
    NO_TIMESTAMP_TYPE,
    /** The time the producer gave (or the time of {@code send}). */
    CREATE_TIME,
    /** The time the leader appended the batch (topic config {@code message.timestamp.type=LogAppendTime}). */
    LOG_APPEND_TIME
}
