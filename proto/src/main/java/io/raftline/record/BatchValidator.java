package io.raftline.record;

import io.raftline.protocol.ErrorCode;
import java.nio.ByteBuffer;

/**
 * The broker's check of incoming batches before anything is written: shallow, it never re-encodes. Checked per
 * batch, in this order (the first failure wins and names the batch):
 * <ol>
 *   <li>a whole header is present, else CORRUPT_MESSAGE (leftover or truncated bytes);</li>
 *   <li>magic is 2, else UNSUPPORTED_FORMAT (nothing after the magic can be trusted to mean anything);</li>
 *   <li>batch length at least a header, else CORRUPT_MESSAGE; size at most {@code maxBatchBytes}, else
 *       MESSAGE_TOO_LARGE; the whole batch present, else CORRUPT_MESSAGE;</li>
 *   <li>CRC32C matches, else CORRUPT_MESSAGE;</li>
 *   <li>no unknown attribute bits and a known codec, else UNSUPPORTED_FORMAT;</li>
 *   <li>counts: at least one record; for producer input {@code lastOffsetDelta == recordCount - 1}, for replicated
 *       input (compaction leaves gaps) {@code lastOffsetDelta >= recordCount - 1} and offsets rising from batch to
 *       batch; else INVALID_RECORD.</li>
 * </ol>
 * An uncompressed batch is also walked record by record (varint headers only, nothing copied): the record count,
 * the offset deltas and the section's exact length must agree with the header, and for producer input in
 * CreateTime the max timestamp must be the records' maximum. A compressed batch is not decompressed: its CRC
 * protects what the producer wrote, and consumers check its records when they decode them.
 */
public final class BatchValidator {

    private BatchValidator() {
    }

    /** Validates producer input: offsets will be assigned by the leader, so deltas must be 0..count-1. */
    public static ValidationResult validate(ByteBuffer batches, int maxBatchBytes) {
        return validate(batches, maxBatchBytes, true);
    }

    /** Validates batches copied from a leader: offsets are kept, gaps from compaction are allowed. */
    public static ValidationResult validateReplicated(ByteBuffer batches, int maxBatchBytes) {
        return validate(batches, maxBatchBytes, false);
    }

    private static ValidationResult validate(ByteBuffer buf, int maxBatchBytes, boolean fromProducer) {
        int pos = buf.position();
        int end = buf.limit();
        if (pos == end) {
            return ValidationResult.error(ErrorCode.INVALID_RECORD, "no record batch in the request");
        }
        ValidationResult.Summary s = new ValidationResult.Summary();
        int index = 0;
        while (pos < end) {
            String where = "batch " + index + " (at byte " + (pos - buf.position()) + ")";
            if (end - pos < RecordBatch.HEADER_SIZE) {
                return ValidationResult.error(ErrorCode.CORRUPT_MESSAGE,
                    where + ": " + (end - pos) + " leftover bytes, less than a " + RecordBatch.HEADER_SIZE + "-byte batch header");
            }
            RecordBatch batch = RecordBatch.view(buf, pos);
            if (batch.magic() != RecordBatch.CURRENT_MAGIC) {
                return ValidationResult.error(ErrorCode.UNSUPPORTED_FORMAT, where + ": unknown magic " + batch.magic()
                    + " (this broker reads magic " + RecordBatch.CURRENT_MAGIC + ")");
            }
            int length = batch.batchLength();
            if (length < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD) {
                return ValidationResult.error(ErrorCode.CORRUPT_MESSAGE, where + ": batch length " + length + " is smaller than a header");
            }
            long size = (long) length + RecordBatch.LOG_OVERHEAD;
            if (size > maxBatchBytes) {
                return ValidationResult.error(ErrorCode.MESSAGE_TOO_LARGE, where + ": " + size + " bytes is above the limit of "
                    + maxBatchBytes + " (max.message.bytes)");
            }
            if (size > end - pos) {
                return ValidationResult.error(ErrorCode.CORRUPT_MESSAGE, where + ": length says " + size + " bytes but only "
                    + (end - pos) + " are present");
            }
            long computed = RecordBatch.crc32c(buf, pos + RecordBatch.ATTRIBUTES_OFFSET, pos + (int) size);
            if (computed != batch.checksum()) {
                return ValidationResult.error(ErrorCode.CORRUPT_MESSAGE, where + ": CRC mismatch (stored "
                    + Long.toHexString(batch.checksum()) + ", computed " + Long.toHexString(computed) + ")");
            }
            String problem = checkHeader(batch, fromProducer);
            if (problem == null && !batch.isCompressed()) {
                problem = checkRecords(batch, fromProducer);
            }
            if (problem != null) {
                ErrorCode code = problem.startsWith("unsupported") ? ErrorCode.UNSUPPORTED_FORMAT : ErrorCode.INVALID_RECORD;
                return ValidationResult.error(code, where + ": " + problem);
            }
            if (!fromProducer && index > 0 && batch.baseOffset() <= s.lastOffset) {
                return ValidationResult.error(ErrorCode.INVALID_RECORD, where + ": base offset " + batch.baseOffset()
                    + " does not follow the previous batch's last offset " + s.lastOffset);
            }
            summarize(s, batch, index);
            pos += (int) size;
            index++;
        }
        return ValidationResult.ok(s);
    }

    /** Null if the header's attributes and counts are acceptable, else the problem ("unsupported ..." for a format one). */
    private static String checkHeader(RecordBatch batch, boolean fromProducer) {
        int attributes = batch.attributes();
        if ((attributes & ~RecordBatch.KNOWN_ATTRIBUTES_MASK) != 0) {
            return "unsupported attribute bits 0x" + Integer.toHexString(attributes & 0xffff);
        }
        int codec = attributes & RecordBatch.COMPRESSION_CODEC_MASK;
        if (codec > CompressionType.ZSTD.id()) {
            return "unsupported compression codec id " + codec;
        }
        int count = batch.recordCount();
        int lastDelta = batch.lastOffsetDelta();
        if (count < 1) {
            return "record count " + count + " (a batch holds at least one record)";
        }
        if (fromProducer ? lastDelta != count - 1 : lastDelta < count - 1) {
            return "last offset delta " + lastDelta + " does not fit record count " + count;
        }
        if (!fromProducer && batch.baseOffset() < 0) {
            return "negative base offset " + batch.baseOffset();
        }
        return null;
    }

    /** Walks an uncompressed section without copying; null if consistent with the header. */
    private static String checkRecords(RecordBatch batch, boolean fromProducer) {
        ByteBuffer buf = batch.buffer();
        int start = batch.position() + RecordBatch.RECORDS_OFFSET;
        ByteReader reader = new ByteReader(buf, start, batch.position() + batch.sizeInBytes());
        int count = batch.recordCount();
        int lastDelta = batch.lastOffsetDelta();
        long base = batch.baseTimestamp();
        long max = Long.MIN_VALUE;
        int previousDelta = -1;
        try {
            for (int i = 0; i < count; i++) {
                int length = reader.readVarint();
                int bodyStart = reader.position();
                if (length < 3 || length > reader.remaining()) {
                    return "record " + i + " has length " + length + " with " + reader.remaining() + " bytes left";
                }
                reader.readByte();
                long timestampDelta = reader.readVarlong();
                int offsetDelta = reader.readVarint();
                if (fromProducer ? offsetDelta != i : offsetDelta <= previousDelta) {
                    return "record " + i + " has offset delta " + offsetDelta + " after " + previousDelta;
                }
                previousDelta = offsetDelta;
                max = Math.max(max, base + timestampDelta);
                int consumed = reader.position() - bodyStart;
                reader.skip(length - consumed);
            }
        } catch (RecordFormatException e) {
            return "records section: " + e.getMessage();
        }
        if (reader.remaining() != 0) {
            return reader.remaining() + " bytes after the last of " + count + " records";
        }
        if (previousDelta != lastDelta) {
            return "last record's offset delta " + previousDelta + " differs from the header's " + lastDelta;
        }
        if (fromProducer && batch.timestampType() == TimestampType.CREATE_TIME && max != batch.maxTimestamp()) {
            return "max timestamp " + batch.maxTimestamp() + " differs from the records' maximum " + max;
        }
        return null;
    }

    private static void summarize(ValidationResult.Summary s, RecordBatch batch, int index) {
        if (index == 0) {
            s.firstOffset = batch.baseOffset();
            s.firstProducerId = batch.producerId();
            s.firstProducerEpoch = batch.producerEpoch();
            s.firstSequence = batch.baseSequence();
        }
        s.lastOffset = batch.lastOffset();
        s.lastProducerId = batch.producerId();
        s.lastProducerEpoch = batch.producerEpoch();
        s.lastSequence = batch.lastSequence();
        s.batchCount++;
        s.recordCount += batch.recordCount();
        s.sizeInBytes += batch.sizeInBytes();
        if (s.maxTimestampBatchIndex < 0 || batch.maxTimestamp() >= s.maxTimestamp) {
            s.maxTimestamp = batch.maxTimestamp();
            s.maxTimestampBatchIndex = index;
        }
    }
}
