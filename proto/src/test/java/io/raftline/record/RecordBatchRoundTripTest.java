package io.raftline.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.arrays;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import io.raftline.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** Builder → bytes → view/iterator round trips for every codec, with nulls, empty values, headers and large values. */
class RecordBatchRoundTripTest {

    /** What a test wrote, to compare with what is read back. */
    record Input(long timestamp, byte[] key, byte[] value, Header[] headers) {
        @Override
        public String toString() {
            return "Input[" + timestamp + ", key " + describe(key) + ", value " + describe(value) + ", headers "
                + (headers == null ? "null" : Arrays.toString(headers)) + "]";
        }

        private static String describe(byte[] b) {
            return b == null ? "null" : b.length <= 16 ? HexFormat.of().formatHex(b) : b.length + " bytes " + HexFormat.of().formatHex(b, 0, 8) + "…";
        }
    }

    @Test
    void roundTripsEveryField() {
        qt().withFixedSeed(20240301L).withExamples(150).forAll(codecs(), records(), offsets(), producerIds())
            .checkAssert(RecordBatchRoundTripTest::roundTripsEveryField);
    }

    private static void roundTripsEveryField(CompressionType codec, List<Input> inputs, long baseOffset, long producerId) {
        RecordBatchBuilder builder = new RecordBatchBuilder(codec, TimestampType.CREATE_TIME, baseOffset, producerId,
            (short) 7, producerId < 0 ? RecordBatch.NO_SEQUENCE : 42, 256);
        long maxTimestamp = Long.MIN_VALUE;
        for (Input in : inputs) {
            assertThat(builder.hasRoomFor(Integer.MAX_VALUE, in.key, in.value, in.headers)).isTrue();
            builder.append(in.timestamp, in.key, in.value, in.headers);
            maxTimestamp = Math.max(maxTimestamp, in.timestamp);
        }
        ByteBuffer buf = builder.build();
        assertThat(buf.position()).isZero();
        if (codec == CompressionType.NONE) {
            assertThat(builder.estimatedSizeInBytes()).isEqualTo(buf.limit());
        }

        RecordBatch batch = RecordBatch.view(buf, 0);
        assertThat(batch.sizeInBytes()).isEqualTo(buf.limit());
        assertThat(batch.isValid()).isTrue();
        assertThat(batch.magic()).isEqualTo(RecordBatch.CURRENT_MAGIC);
        assertThat(batch.compressionType()).isEqualTo(codec);
        assertThat(batch.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(batch.baseOffset()).isEqualTo(baseOffset);
        assertThat(batch.lastOffset()).isEqualTo(baseOffset + inputs.size() - 1);
        assertThat(batch.recordCount()).isEqualTo(inputs.size());
        assertThat(batch.baseTimestamp()).isEqualTo(inputs.get(0).timestamp);
        assertThat(batch.maxTimestamp()).isEqualTo(maxTimestamp);
        assertThat(batch.producerId()).isEqualTo(producerId);
        assertThat(batch.producerEpoch()).isEqualTo((short) 7);
        assertThat(batch.partitionLeaderEpoch()).isEqualTo(RecordBatch.NO_PARTITION_LEADER_EPOCH);

        ValidationResult result = BatchValidator.validate(buf, Integer.MAX_VALUE);
        assertThat(result.error()).as("%s", result).isEqualTo(ErrorCode.NONE);
        assertThat(result.recordCount()).isEqualTo(inputs.size());
        assertThat(result.maxTimestamp()).isEqualTo(maxTimestamp);

        assertRecords(batch, inputs, baseOffset, -1);
    }

    @Test
    void stampingOffsetAndEpochKeepsTheCrc() {
        qt().withFixedSeed(77L).withExamples(60).forAll(codecs(), records(), offsets())
            .checkAssert(RecordBatchRoundTripTest::stampingOffsetAndEpochKeepsTheCrc);
    }

    private static void stampingOffsetAndEpochKeepsTheCrc(CompressionType codec, List<Input> inputs, long newBase) {
        ByteBuffer buf = build(codec, inputs);
        RecordBatch batch = RecordBatch.view(buf, 0);
        long crc = batch.checksum();
        batch.setBaseOffset(newBase);
        batch.setPartitionLeaderEpoch(12);
        assertThat(batch.checksum()).isEqualTo(crc);
        assertThat(batch.isValid()).isTrue();
        assertThat(batch.partitionLeaderEpoch()).isEqualTo(12);
        assertRecords(batch, inputs, newBase, -1);

        batch.setMaxTimestampAndType(5_000L, TimestampType.LOG_APPEND_TIME);
        assertThat(batch.isValid()).isTrue();
        assertThat(batch.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(batch.compressionType()).isEqualTo(codec);
        assertThat(BatchValidator.validate(buf, Integer.MAX_VALUE).isOk()).isTrue();
        assertRecords(batch, inputs, newBase, 5_000L);
    }

    @Test
    void manyBatchesIterateInOrder() {
        qt().withFixedSeed(4242L).withExamples(40).forAll(batchLists(), codecs())
            .checkAssert(RecordBatchRoundTripTest::manyBatchesIterateInOrder);
    }

    private static void manyBatchesIterateInOrder(List<List<Input>> batches, CompressionType codec) {
        List<ByteBuffer> built = new ArrayList<>();
        int total = 0;
        for (List<Input> b : batches) {
            ByteBuffer one = build(codec, b);
            built.add(one);
            total += one.limit();
        }
        ByteBuffer all = ByteBuffer.allocate(total + 10);
        all.position(10);
        for (ByteBuffer b : built) {
            all.put(b.duplicate());
        }
        all.flip().position(10);
        int i = 0;
        for (RecordBatch batch : Records.batches(all)) {
            assertThat(batch.isValid()).isTrue();
            assertRecords(batch, batches.get(i), 0, -1);
            i++;
        }
        assertThat(i).isEqualTo(batches.size());
        assertThat(Records.validBytes(all)).isEqualTo(total);
        assertThat(all.position()).isEqualTo(10);
        assertThat(BatchValidator.validate(all, Integer.MAX_VALUE).batchCount()).isEqualTo(batches.size());
    }

    static ByteBuffer build(CompressionType codec, List<Input> inputs) {
        RecordBatchBuilder builder = new RecordBatchBuilder(codec, TimestampType.CREATE_TIME, 0L, -1L, (short) -1, -1, 64);
        for (Input in : inputs) {
            builder.append(in.timestamp, in.key, in.value, in.headers);
        }
        return builder.build();
    }

    static void assertRecords(RecordBatch batch, List<Input> inputs, long baseOffset, long logAppendTime) {
        Iterator<Record> it = batch.iterator();
        for (int i = 0; i < inputs.size(); i++) {
            assertThat(it.hasNext()).isTrue();
            Record r = it.next();
            Input in = inputs.get(i);
            assertThat(r.offset()).isEqualTo(baseOffset + i);
            assertThat(r.timestamp()).isEqualTo(logAppendTime >= 0 ? logAppendTime : in.timestamp);
            assertThat(r.keyBytes()).isEqualTo(in.key);
            assertThat(r.valueBytes()).isEqualTo(in.value);
            assertThat(r.hasKey()).isEqualTo(in.key != null);
            assertThat(r.hasValue()).isEqualTo(in.value != null);
            assertThat(r.keySize()).isEqualTo(in.key == null ? -1 : in.key.length);
            assertThat(r.valueSize()).isEqualTo(in.value == null ? -1 : in.value.length);
            // the views: read-only, starting at 0, exactly the field's bytes, independent of each other
            assertThat(r.key() == null ? null : bytesOf(r.key())).isEqualTo(in.key);
            assertThat(r.value() == null ? null : bytesOf(r.value())).isEqualTo(in.value);
            if (r.value() != null) {
                assertThat(r.value().isReadOnly()).isTrue();
                assertThat(r.value().position()).isZero();
                assertThat(r.value().capacity()).isEqualTo(in.value.length);
            }
            assertThat(r.headers()).containsExactly(in.headers == null ? new Header[0] : in.headers);
        }
        assertThat(it.hasNext()).isFalse();
    }

    private static byte[] bytesOf(java.nio.ByteBuffer view) {
        byte[] out = new byte[view.remaining()];
        view.get(out);
        return out;
    }

    private static Gen<CompressionType> codecs() {
        return arbitrary().enumValues(CompressionType.class);
    }

    private static Gen<Long> offsets() {
        return longs().between(0, Long.MAX_VALUE / 2);
    }

    private static Gen<Long> producerIds() {
        return Generate.oneOf(Generate.constant(-1L), longs().between(0, 1L << 40));
    }

    private static Gen<List<Input>> records() {
        return listOf(input(), 1, 30);
    }

    private static Gen<List<List<Input>>> batchLists() {
        return listOf(listOf(input(), 1, 5), 1, 6);
    }

    private static Gen<Input> input() {
        Gen<Long> timestamps = longs().between(1_600_000_000_000L, 1_800_000_000_000L);
        Gen<byte[]> keys = orNull(bytes(0, 24), 20);
        Gen<byte[]> values = orNull(Generate.frequency(Pair.of(8, bytes(0, 300)), Pair.of(1, bytes(40_000, 200_000))), 15);
        Gen<Header> header = strings(12).zip(orNull(bytes(0, 16), 20), Header::new);
        Gen<Header[]> headers = orNull(arrays().ofClass(header, Header.class).withLengthBetween(0, 3), 30);
        return timestamps.zip(keys, values, headers, Input::new);
    }

    private static <T> Gen<List<T>> listOf(Gen<T> elements, int min, int max) {
        return lists().of(elements).ofType(lists().arrayList()).ofSizeBetween(min, max);
    }

    /** {@code null} in {@code percent} of the cases, otherwise a value of {@code gen}. */
    private static <T> Gen<T> orNull(Gen<T> gen, int percent) {
        Gen<Integer> dice = Generate.range(0, 99);
        Gen<T> out = in -> dice.generate(in) < percent ? null : gen.generate(in);
        return out.describedAs(t -> t == null ? "null" : gen.asString(t));
    }

    /**
     * min..max bytes. The length and a seed for the contents are drawn (so a failure shrinks to shorter arrays without
     * tracking every byte); runs of repeated bytes make the data compressible, as real payloads usually are.
     */
    private static Gen<byte[]> bytes(int min, int max) {
        Gen<byte[]> gen = Generate.range(min, max).zip(longs().all(), (length, seed) -> {
            byte[] b = new byte[length];
            new SplittableRandom(seed).nextBytes(b);
            for (int i = 1; i < b.length; i++) {
                if ((b[i] & 3) != 0) {
                    b[i] = b[i - 1];
                }
            }
            return b;
        });
        return gen.describedAs(Input::describe);
    }

    /**
     * Strings of 0..maxLength UTF-16 chars drawn from the whole Basic Multilingual Plane except surrogates, private-use
     * characters and noncharacters (U+FDD0..U+FDEF, U+FFFE, U+FFFF).
     */
    private static Gen<String> strings(int maxLength) {
        int low = 0xD800;
        int mid = 0xFDD0 - 0xF900;
        int high = 0xFFFE - 0xFDF0;
        Gen<Integer> chars = Generate.range(0, low + mid + high - 1)
            .map(i -> i < low ? i : i < low + mid ? 0xF900 + i - low : 0xFDF0 + i - low - mid);
        Gen<Integer> lengths = Generate.range(0, maxLength);
        return in -> {
            char[] out = new char[lengths.generate(in)];
            for (int i = 0; i < out.length; i++) {
                out[i] = (char) chars.generate(in).intValue();
            }
            return new String(out);
        };
    }
}
