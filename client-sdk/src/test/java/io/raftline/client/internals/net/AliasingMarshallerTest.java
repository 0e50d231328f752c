package io.raftline.client.internals.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
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
