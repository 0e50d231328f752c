package io.raftline.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteOutput;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.grpc.StatusRuntimeException;
import io.raftline.protocol.broker.FetchResponse;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AliasingMarshallerTest {

    private final AliasingMarshaller<FetchResponse> marshaller = new AliasingMarshaller<>(FetchResponse.getDefaultInstance());

    private static FetchResponse response(int partitions, int bytesEach, long seed) {
        System.out.println("seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        FetchResponse.Builder b = FetchResponse.newBuilder().setCorrelationId(42);
        for (int p = 0; p < partitions; p++) {
            byte[] records = new byte[bytesEach];
            for (int i = 0; i < records.length; i += 64) {
                records[i] = (byte) random.nextInt(256);
            }
            b.addPartitions(FetchResponse.PartitionData.newBuilder().setTopic("t").setPartition(p).setHighWatermark(p * 10L)
                .setRecords(ByteString.copyFrom(records)));
        }
        return b.build();
    }

    @Test
    void roundTripsSmallAndLargeMessages() throws Exception {
        // below and above gRPC's 4 MiB threshold, where its own marshaller switches to a stream decoder
        for (FetchResponse sent : new FetchResponse[]{response(1, 100, 1), response(6, 1 << 20, 2), FetchResponse.getDefaultInstance()}) {
            try (InputStream in = marshaller.stream(sent)) {
                FetchResponse got = marshaller.parse(in);
                assertThat(got).isEqualTo(sent);
            }
        }
    }

    @Test
    void parsedRecordsShareTheReceivedArrayInsteadOfBeingCopied() throws Exception {
        FetchResponse sent = response(3, 10_000, 5);
        int wireSize = sent.getSerializedSize();
        try (InputStream in = marshaller.stream(sent)) {
            FetchResponse got = marshaller.parse(in);
            for (FetchResponse.PartitionData p : got.getPartitionsList()) {
                assertThat(backingArrayLength(p.getRecords())).as("records of partition %d alias the whole message", p.getPartition())
                    .isEqualTo(wireSize);
            }
        }
    }

    /** The length of the array behind {@code bytes} (a copy's is the field's own size). */
    private static int backingArrayLength(ByteString bytes) throws java.io.IOException {
        int[] length = {-1};
        UnsafeByteOperations.unsafeWriteTo(bytes, new ByteOutput() {
            @Override
            public void write(byte value) {
            }

            @Override
            public void write(byte[] value, int offset, int len) {
                length[0] = value.length;
            }

            @Override
            public void writeLazy(byte[] value, int offset, int len) {
                length[0] = value.length;
            }

            @Override
            public void write(java.nio.ByteBuffer value) {
            }

            @Override
            public void writeLazy(java.nio.ByteBuffer value) {
            }
        });
        return length[0];
    }

    @Test
    void parsesAStreamOfUnknownLength() {
        FetchResponse sent = response(2, 5000, 3);
        FetchResponse got = marshaller.parse(new ByteArrayInputStream(sent.toByteArray()) {
            @Override
            public synchronized int available() {
                return 0; // not KnownLength: read to the end
            }
        });
        assertThat(got).isEqualTo(sent);
    }

    @Test
    void malformedBytesAreAnInternalError() {
        byte[] bytes = response(1, 1000, 4).toByteArray();
        byte[] truncated = Arrays.copyOf(bytes, bytes.length - 10);
        assertThatThrownBy(() -> marshaller.parse(new ByteArrayInputStream(truncated))).isInstanceOf(StatusRuntimeException.class)
            .hasMessageContaining("INTERNAL");
    }
}
