package io.raftline.record;

/**
 * What a batch's timestamps mean, stored in bit 3 of the batch attributes: the producer's clock
 * ({@code CreateTime}, bit clear) or the broker's clock at append ({@code LogAppendTime}, bit set). With
 * LogAppendTime every record of the batch has the batch's max timestamp.
 */
public enum TimestampType {
    CREATE_TIME,
    LOG_APPEND_TIME
}
