package io.raftline.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Partial trailing batches, codec names and ids, varint encoding. */
class RecordsAndTypesTest {

    @Test
    void iterationStopsBeforeAPartialTrailingBatch() {
        ByteBuffer a = RecordBatchRoundTripTest.build(CompressionType.NONE,
            List.of(new RecordBatchRoundTripTest.Input(1, null, new byte[] {1}, null)));
        ByteBuffer two = BatchValidatorTest.concat(a, a);
        for (int cut = 0; cut <= two.limit(); cut++) {
            ByteBuffer view = two.duplicate();
            view.limit(cut);
            List<RecordBatch> seen = new ArrayList<>();
            Records.batches(view).forEach(seen::add);
            int expected = cut / a.limit();
            assertThat(seen).hasSize(expected);
            assertThat(Records.validBytes(view)).isEqualTo(expected * a.limit());
            assertThat(Records.wholeBatchBytes(view)).isEqualTo(expected * a.limit());
        }
    }

    @Test
    void recordCountSumsWholeBatchesOnly() {
        ByteBuffer three = RecordBatchRoundTripTest.build(CompressionType.GZIP, List.of(
            new RecordBatchRoundTripTest.Input(1, null, new byte[] {1}, null),
            new RecordBatchRoundTripTest.Input(2, null, new byte[] {2}, null),
            new RecordBatchRoundTripTest.Input(3, null, new byte[] {3}, null)));
        ByteBuffer one = RecordBatchRoundTripTest.build(CompressionType.NONE,
            List.of(new RecordBatchRoundTripTest.Input(1, null, new byte[] {1}, null)));
        ByteBuffer both = BatchValidatorTest.concat(three, one);
        // {bytes visible, records counted}: nothing, a header only, the first batch, all but one byte, both.
        int[][] table = {{0, 0}, {RecordBatch.HEADER_SIZE, 0}, {three.limit(), 3}, {both.limit() - 1, 3}, {both.limit(), 4}};
        for (int[] row : table) {
            ByteBuffer view = both.duplicate();
            view.limit(row[0]);
            assertThat(Records.recordCount(view)).as("first %d bytes", row[0]).isEqualTo(row[1]);
        }
    }

    @Test
    void validBytesStopsAtABadCrc() {
        ByteBuffer a = RecordBatchRoundTripTest.build(CompressionType.SNAPPY,
            List.of(new RecordBatchRoundTripTest.Input(1, new byte[] {3}, new byte[] {1, 2}, null)));
        ByteBuffer two = BatchValidatorTest.concat(a, a);
        two.put(two.limit() - 1, (byte) (two.get(two.limit() - 1) ^ 1));
        assertThat(Records.validBytes(two)).isEqualTo(a.limit());
        assertThat(Records.wholeBatchBytes(two)).isEqualTo(two.limit());
    }

    @Test
    void codecsByNameAndId() {
        for (CompressionType t : CompressionType.values()) {
            assertThat(CompressionType.forId(t.id())).isSameAs(t);
            assertThat(CompressionType.forName(t.configName())).isSameAs(t);
            assertThat(CompressionType.forName(t.configName().toUpperCase(java.util.Locale.ROOT))).isSameAs(t);
        }
        assertThat(CompressionType.GZIP.id()).isEqualTo(1);
        assertThat(CompressionType.ZSTD.id()).isEqualTo(4);
        assertThatThrownBy(() -> CompressionType.forName("brotli"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("brotli").hasMessageContaining("zstd");
        assertThatThrownBy(() -> CompressionType.forName(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CompressionType.forId(5)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void buildingAnEmptyBatchFails() {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1, 0);
        assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class);
        assertThat(b.hasRoomFor(1, new byte[100], null, null)).isTrue();
        b.append(0, null, null, null);
        assertThat(b.hasRoomFor(100, new byte[100], null, null)).isFalse();
        b.build();
        assertThatThrownBy(() -> b.append(0, null, null, null)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void varintsRoundTrip() {
        qt().withFixedSeed(5L).withExamples(500).forAll(integers().all(), longs().all()).checkAssert(RecordsAndTypesTest::varintsRoundTrip);
    }

    private static void varintsRoundTrip(int i, long l) {
        byte[] buf = new byte[16];
        int end = Varints.writeVarint(i, buf, 0);
        assertThat(end).isEqualTo(Varints.sizeOfVarint(i));
        assertThat(new ByteReader(ByteBuffer.wrap(buf), 0, end).readVarint()).isEqualTo(i);
        end = Varints.writeVarlong(l, buf, 0);
        assertThat(end).isEqualTo(Varints.sizeOfVarlong(l));
        assertThat(new ByteReader(ByteBuffer.wrap(buf), 0, end).readVarlong()).isEqualTo(l);
    }

    @Test
    void varintEdges() {
        for (long v : new long[] {0, -1, 1, 63, -64, 64, Integer.MAX_VALUE, Integer.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE}) {
            byte[] buf = new byte[16];
            int end = Varints.writeVarlong(v, buf, 0);
            assertThat(new ByteReader(ByteBuffer.wrap(buf), 0, end).readVarlong()).isEqualTo(v);
        }
        assertThat(Varints.sizeOfVarint(-1)).isEqualTo(1);
        assertThat(Varints.sizeOfVarint(Integer.MIN_VALUE)).isEqualTo(5);
        byte[] tooLong = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 1};
        assertThatThrownBy(() -> new ByteReader(ByteBuffer.wrap(tooLong), 0, 6).readVarint()).isInstanceOf(RecordFormatException.class);
    }
}
