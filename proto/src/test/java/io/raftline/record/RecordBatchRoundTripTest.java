package io.raftline.record;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/** Builder → bytes → view/iterator round trips for every codec, with nulls, empty values, headers and large values. */
class RecordBatchRoundTripTest {

    /** What a test wrote, to compare with what is read back. */
    record Input(long timestamp, byte[] key, byte[] value, Header[] headers) {
    }

    @Property(tries = 150, seed = "20240301")
    void roundTripsEveryField(@ForAll CompressionType codec, @ForAll("records") List<Input> inputs,
                              @ForAll("offsets") long baseOffset, @ForAll("producerIds") long producerId) {
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

    @Property(tries = 60, seed = "77")
    void stampingOffsetAndEpochKeepsTheCrc(@ForAll CompressionType codec, @ForAll("records") List<Input> inputs,
                                           @ForAll("offsets") long newBase) {
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

    @Property(tries = 40, seed = "4242")
    void manyBatchesIterateInOrder(@ForAll("batchLists") List<List<Input>> batches, @ForAll CompressionType codec) {
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

    @Provide
    Arbitrary<Long> offsets() {
        return Arbitraries.longs().between(0, Long.MAX_VALUE / 2);
    }

    @Provide
    Arbitrary<Long> producerIds() {
        return Arbitraries.oneOf(Arbitraries.just(-1L), Arbitraries.longs().between(0, 1L << 40));
    }

    @Provide
    Arbitrary<List<Input>> records() {
        return input().list().ofMinSize(1).ofMaxSize(30);
    }

    @Provide
    Arbitrary<List<List<Input>>> batchLists() {
        return input().list().ofMinSize(1).ofMaxSize(5).list().ofMinSize(1).ofMaxSize(6);
    }

    private static Arbitrary<Input> input() {
        Arbitrary<Long> timestamps = Arbitraries.longs().between(1_600_000_000_000L, 1_800_000_000_000L);
        Arbitrary<byte[]> keys = bytes(0, 24).injectNull(0.2);
        Arbitrary<byte[]> small = bytes(0, 300);
        Arbitrary<byte[]> large = bytes(40_000, 200_000);
        Arbitrary<byte[]> values = Arbitraries.frequencyOf(
            Tuple.of(8, small), Tuple.of(1, large)).injectNull(0.15);
        Arbitrary<Header> header = Combinators.combine(Arbitraries.strings().ofMaxLength(12), bytes(0, 16).injectNull(0.2))
            .as(Header::new);
        Arbitrary<Header[]> headers = header.array(Header[].class).ofMaxSize(3).injectNull(0.3);
        return Combinators.combine(timestamps, keys, values, headers).as(Input::new);
    }

    private static Arbitrary<byte[]> bytes(int min, int max) {
        // Runs of repeated bytes make the data compressible, as real payloads usually are.
        return Arbitraries.bytes().array(byte[].class).ofMinSize(min).ofMaxSize(max)
            .map(b -> {
                for (int i = 1; i < b.length; i++) {
                    if ((b[i] & 3) != 0) {
                        b[i] = b[i - 1];
                    }
                }
                return b;
            });
    }
}
