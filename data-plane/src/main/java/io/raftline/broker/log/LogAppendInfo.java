package io.raftline.broker.log;

import io.raftline.record.ValidationResult;

/**
 * What an append stored: the offsets of its first and last record, its record and batch counts and bytes, the
 * largest timestamp, the append time if the topic uses LogAppendTime (else -1), and the validator's summary
 * (producer id/epoch/sequences, for the broker's idempotence checks).
 */
public record LogAppendInfo(long firstOffset, long lastOffset, long maxTimestamp, long offsetOfMaxTimestamp,
                            long logAppendTimeMs, long recordCount, int batchCount, int sizeInBytes,
                            long logStartOffset, ValidationResult validation) {
}
