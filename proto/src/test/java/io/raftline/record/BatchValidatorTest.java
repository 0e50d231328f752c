package io.raftline.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;

import io.raftline.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Bad input gets the right error code: corrupt bytes, cut lengths, unknown magic/codec, size limits, counts. */
class BatchValidatorTest {

    private static ByteBuffer batch(CompressionType codec, int records) {
        RecordBatchBuilder b = new RecordBatchBuilder(codec, TimestampType.CREATE_TIME, 0, 9, (short) 1, 0, 128);
        for (int i = 0; i < records; i++) {
            b.append(1_000L + i, ("k" + i).getBytes(StandardCharsets.UTF_8), ("value-" + i).repeat(5).getBytes(StandardCharsets.UTF_8),
                new Header[] {new Header("h", new byte[] {(byte) i})});
        }
        return b.build();
    }

    private static ErrorCode validate(ByteBuffer buf) {
        return BatchValidator.validate(buf, 1 << 20).error();
    }

    private static void rewriteCrc(ByteBuffer buf) {
        CRC32C crc = new CRC32C();
        ByteBuffer d = buf.duplicate();
        d.position(RecordBatch.ATTRIBUTES_OFFSET);
        crc.update(d);
        buf.putInt(RecordBatch.CRC_OFFSET, (int) crc.getValue());
    }

    @Test
    void flippingAnyByteIsCaught() {
        qt().withFixedSeed(99L).withExamples(300)
            .forAll(arbitrary().enumValues(CompressionType.class), integers().between(0, 100_000), integers().between(1, 255))
            .checkAssert(BatchValidatorTest::flippingAnyByteIsCaught);
    }

    private static void flippingAnyByteIsCaught(CompressionType codec, int where, int xor) {
        ByteBuffer buf = batch(codec, 5);
        int pos = where % buf.limit();
        buf.put(pos, (byte) (buf.get(pos) ^ xor));
        ErrorCode code = validate(buf);
        if (pos < RecordBatch.LENGTH_OFFSET || (pos >= RecordBatch.PARTITION_LEADER_EPOCH_OFFSET && pos < RecordBatch.MAGIC_OFFSET)) {
            // base offset and leader epoch are outside the CRC by design: the broker stamps them in place
            assertThat(code).isEqualTo(ErrorCode.NONE);
        } else if (pos == RecordBatch.MAGIC_OFFSET) {
            assertThat(code).isEqualTo(ErrorCode.UNSUPPORTED_FORMAT);
        } else if (pos < RecordBatch.PARTITION_LEADER_EPOCH_OFFSET) {
            // a changed length: too large, smaller than a header, or a cut that the CRC catches
            assertThat(code).isIn(ErrorCode.CORRUPT_MESSAGE, ErrorCode.MESSAGE_TOO_LARGE);
        } else {
            assertThat(code).isEqualTo(ErrorCode.CORRUPT_MESSAGE);
            assertThat(RecordBatch.view(buf, 0).isValid()).isFalse();
        }
    }

    @Test
    void cuttingTheInputAnywhereIsCorrupt() {
        qt().withFixedSeed(123L).withExamples(100)
            .forAll(arbitrary().enumValues(CompressionType.class), integers().between(1, 100_000))
            .checkAssert(BatchValidatorTest::cuttingTheInputAnywhereIsCorrupt);
    }

    private static void cuttingTheInputAnywhereIsCorrupt(CompressionType codec, int cut) {
        ByteBuffer two = concat(batch(codec, 3), batch(codec, 4));
        int keep = cut % two.limit();
        if (keep == 0 || keep == RecordBatch.view(two, 0).sizeInBytes()) {
            return; // a cut at a batch boundary leaves whole batches (or nothing)
        }
        two.limit(keep);
        assertThat(validate(two)).isEqualTo(ErrorCode.CORRUPT_MESSAGE);
    }

    @Test
    void emptyInputIsInvalid() {
        assertThat(validate(ByteBuffer.allocate(0))).isEqualTo(ErrorCode.INVALID_RECORD);
    }

    @Test
    void shorterLengthFieldIsCorrupt() {
        ByteBuffer buf = batch(CompressionType.NONE, 3);
        buf.putInt(RecordBatch.LENGTH_OFFSET, buf.getInt(RecordBatch.LENGTH_OFFSET) - 1);
        ValidationResult r = BatchValidator.validate(buf, 1 << 20);
        assertThat(r.error()).isEqualTo(ErrorCode.CORRUPT_MESSAGE);
        buf.putInt(RecordBatch.LENGTH_OFFSET, 10);
        assertThat(validate(buf)).isEqualTo(ErrorCode.CORRUPT_MESSAGE);
        assertThat(BatchValidator.validate(buf, 1 << 20).message()).contains("smaller than a header");
    }

    @Test
    void leftoverBytesAfterTheLastBatchAreCorrupt() {
        ByteBuffer one = batch(CompressionType.LZ4, 2);
        ByteBuffer withTail = ByteBuffer.allocate(one.limit() + 7);
        withTail.put(one).position(0);
        assertThat(validate(withTail)).isEqualTo(ErrorCode.CORRUPT_MESSAGE);
        assertThat(BatchValidator.validate(withTail, 1 << 20).message()).contains("leftover");
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void aBatchAboveTheLimitIsTooLarge(CompressionType codec) {
        ByteBuffer buf = batch(codec, 10);
        assertThat(BatchValidator.validate(buf, buf.limit()).isOk()).isTrue();
        ValidationResult r = BatchValidator.validate(buf, buf.limit() - 1);
        assertThat(r.error()).isEqualTo(ErrorCode.MESSAGE_TOO_LARGE);
    }

    @Test
    void unknownMagicIsUnsupported() {
        ByteBuffer buf = batch(CompressionType.NONE, 1);
        buf.put(RecordBatch.MAGIC_OFFSET, (byte) 3);
        assertThat(validate(buf)).isEqualTo(ErrorCode.UNSUPPORTED_FORMAT);
    }

    @Test
    void unknownCodecIsUnsupportedEvenWithAGoodCrc() {
        ByteBuffer buf = batch(CompressionType.NONE, 1);
        buf.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) 6);
        rewriteCrc(buf);
        assertThat(validate(buf)).isEqualTo(ErrorCode.UNSUPPORTED_FORMAT);
        assertThatThrownBy(() -> RecordBatch.view(buf, 0).compressionType())
            .isInstanceOf(RecordFormatException.class)
            .extracting(e -> ((RecordFormatException) e).code()).isEqualTo(ErrorCode.UNSUPPORTED_FORMAT);
        buf.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) 0x10);
        rewriteCrc(buf);
        assertThat(validate(buf)).isEqualTo(ErrorCode.UNSUPPORTED_FORMAT);
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void inconsistentCountsAreInvalid(CompressionType codec) {
        ByteBuffer buf = batch(codec, 4);
        buf.putInt(RecordBatch.RECORD_COUNT_OFFSET, 3);
        rewriteCrc(buf);
        assertThat(validate(buf)).isEqualTo(ErrorCode.INVALID_RECORD);

        buf = batch(codec, 4);
        buf.putInt(RecordBatch.RECORD_COUNT_OFFSET, 0);
        buf.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, -1);
        rewriteCrc(buf);
        assertThat(validate(buf)).isEqualTo(ErrorCode.INVALID_RECORD);
    }

    @Test
    void uncompressedRecordsMustAgreeWithTheHeader() {
        // header says 5 records with deltas 0..4, but the section holds 4
        ByteBuffer buf = batch(CompressionType.NONE, 4);
        buf.putInt(RecordBatch.RECORD_COUNT_OFFSET, 5);
        buf.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, 4);
        rewriteCrc(buf);
        assertThat(validate(buf)).isEqualTo(ErrorCode.INVALID_RECORD);

        ByteBuffer wrongMax = batch(CompressionType.NONE, 4);
        wrongMax.putLong(RecordBatch.MAX_TIMESTAMP_OFFSET, 5);
        rewriteCrc(wrongMax);
        assertThat(validate(wrongMax)).isEqualTo(ErrorCode.INVALID_RECORD);
    }

    @Test
    void replicatedBatchesMayHaveGapsButOffsetsMustRise() {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 100, -1, (short) -1, -1, 64);
        b.appendWithOffset(102, 1, new byte[] {1}, null, null);
        b.appendWithOffset(110, 2, new byte[] {2}, new byte[] {9}, null);
        ByteBuffer gappy = b.build();
        assertThat(BatchValidator.validateReplicated(gappy.duplicate(), 1 << 20).isOk()).isTrue();
        assertThat(BatchValidator.validate(gappy.duplicate(), 1 << 20).error()).isEqualTo(ErrorCode.INVALID_RECORD);
        Record second = RecordBatchRoundTripTestHelper.records(gappy)[1];
        assertThat(second.offset()).isEqualTo(110);
        assertThat(second.hasValue()).isTrue();

        ByteBuffer twice = concat(gappy, gappy);
        assertThat(BatchValidator.validateReplicated(twice, 1 << 20).error()).isEqualTo(ErrorCode.INVALID_RECORD);
    }

    @Test
    void iteratingACorruptSectionThrowsCorruptMessage() {
        ByteBuffer buf = batch(CompressionType.GZIP, 3);
        buf.put(buf.limit() - 3, (byte) (buf.get(buf.limit() - 3) ^ 0x55));
        RecordBatch view = RecordBatch.view(buf, 0);
        assertThatThrownBy(view::ensureValid).isInstanceOf(RecordFormatException.class);
        assertThatThrownBy(() -> view.iterator().forEachRemaining(r -> { }))
            .isInstanceOf(RecordFormatException.class)
            .extracting(e -> ((RecordFormatException) e).code()).isEqualTo(ErrorCode.CORRUPT_MESSAGE);
    }

    @Test
    void summaryCarriesProducerFields() {
        ByteBuffer two = concat(batch(CompressionType.ZSTD, 3), batch(CompressionType.NONE, 2));
        ValidationResult r = BatchValidator.validate(two, 1 << 20);
        assertThat(r.isOk()).isTrue();
        assertThat(r.batchCount()).isEqualTo(2);
        assertThat(r.recordCount()).isEqualTo(5);
        assertThat(r.sizeInBytes()).isEqualTo(two.limit());
        assertThat(r.firstProducerId()).isEqualTo(9);
        assertThat(r.firstSequence()).isZero();
        assertThat(r.lastSequence()).isEqualTo(1);
        assertThat(r.maxTimestamp()).isEqualTo(1002L);
        assertThat(r.maxTimestampBatchIndex()).isZero();
    }

    static ByteBuffer concat(ByteBuffer a, ByteBuffer b) {
        ByteBuffer out = ByteBuffer.allocate(a.remaining() + b.remaining());
        out.put(a.duplicate()).put(b.duplicate()).flip();
        return out;
    }
}
