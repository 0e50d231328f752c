package io.raftline.record;

import io.raftline.protocol.ErrorCode;

/**
 * What {@link BatchValidator} found: an error (code + message; nothing may be written) or a summary of the
 * batches. Producer fields are those of the first and the last batch.
 */
public final class ValidationResult {

    private final ErrorCode error;
    private final String message;
    private final int batchCount;
    private final long recordCount;
    private final int sizeInBytes;
    private final long maxTimestamp;
    private final int maxTimestampBatchIndex;
    private final long firstOffset;
    private final long lastOffset;
    private final long firstProducerId;
    private final short firstProducerEpoch;
    private final int firstSequence;
    private final long lastProducerId;
    private final short lastProducerEpoch;
    private final int lastSequence;

    private ValidationResult(ErrorCode error, String message, Summary s) {
        this.error = error;
        this.message = message;
        this.batchCount = s.batchCount;
        this.recordCount = s.recordCount;
        this.sizeInBytes = s.sizeInBytes;
        this.maxTimestamp = s.maxTimestamp;
        this.maxTimestampBatchIndex = s.maxTimestampBatchIndex;
        this.firstOffset = s.firstOffset;
        this.lastOffset = s.lastOffset;
        this.firstProducerId = s.firstProducerId;
        this.firstProducerEpoch = s.firstProducerEpoch;
        this.firstSequence = s.firstSequence;
        this.lastProducerId = s.lastProducerId;
        this.lastProducerEpoch = s.lastProducerEpoch;
        this.lastSequence = s.lastSequence;
    }

    static ValidationResult error(ErrorCode code, String message) {
        return new ValidationResult(code, message, new Summary());
    }

    static ValidationResult ok(Summary s) {
        return new ValidationResult(ErrorCode.NONE, null, s);
    }

    public boolean isOk() {
        return error == ErrorCode.NONE;
    }

    /** NONE when valid. */
    public ErrorCode error() {
        return error;
    }

    /** Why it is invalid (null when valid). */
    public String message() {
        return message;
    }

    /** @throws RecordFormatException carrying the code and message, if invalid */
    public ValidationResult orThrow() {
        if (!isOk()) {
            throw new RecordFormatException(error, message);
        }
        return this;
    }

    public int batchCount() {
        return batchCount;
    }

    public long recordCount() {
        return recordCount;
    }

    public int sizeInBytes() {
        return sizeInBytes;
    }

    /** The largest batch max timestamp (NO_TIMESTAMP if all are). */
    public long maxTimestamp() {
        return maxTimestamp;
    }

    /** Which batch (0-based) holds {@link #maxTimestamp()} (the last one of equals). */
    public int maxTimestampBatchIndex() {
        return maxTimestampBatchIndex;
    }

    /** The first batch's base offset as it is in the input (meaningful for replicated batches). */
    public long firstOffset() {
        return firstOffset;
    }

    /** The last batch's last offset as it is in the input. */
    public long lastOffset() {
        return lastOffset;
    }

    public long firstProducerId() {
        return firstProducerId;
    }

    public short firstProducerEpoch() {
        return firstProducerEpoch;
    }

    public int firstSequence() {
        return firstSequence;
    }

    public long lastProducerId() {
        return lastProducerId;
    }

    public short lastProducerEpoch() {
        return lastProducerEpoch;
    }

    public int lastSequence() {
        return lastSequence;
    }

    @Override
    public String toString() {
        return isOk() ? "ValidationResult(ok, batches=" + batchCount + ", records=" + recordCount + ", bytes=" + sizeInBytes + ")"
            : "ValidationResult(" + error + ": " + message + ")";
    }

    /** Accumulates the summary while validating. */
    static final class Summary {
        int batchCount;
        long recordCount;
        int sizeInBytes;
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        int maxTimestampBatchIndex = -1;
        long firstOffset = -1;
        long lastOffset = -1;
        long firstProducerId = RecordBatch.NO_PRODUCER_ID;
        short firstProducerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
        int firstSequence = RecordBatch.NO_SEQUENCE;
        long lastProducerId = RecordBatch.NO_PRODUCER_ID;
        short lastProducerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
        int lastSequence = RecordBatch.NO_SEQUENCE;
    }
}
