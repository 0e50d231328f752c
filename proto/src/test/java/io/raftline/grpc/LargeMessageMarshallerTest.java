package io.raftline.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.grpc.BindableService;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.FetchResponse;
import io.raftline.protocol.broker.ProduceRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LargeMessageMarshallerTest {

    private final LargeMessageMarshaller<FetchResponse> marshaller =
        new LargeMessageMarshaller<>(new AliasingMarshaller<>(FetchResponse.getDefaultInstance()));

    /** A response whose records are direct-buffer ByteStrings, as the broker's are (StoredBytes). */
    private static FetchResponse response(int partitions, int bytesEach, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        FetchResponse.Builder b = FetchResponse.newBuilder().setCorrelationId(42);
        for (int p = 0; p < partitions; p++) {
            ByteBuffer records = ByteBuffer.allocateDirect(bytesEach);
            for (int i = 0; i < bytesEach; i++) {
                records.put((byte) random.nextInt(256));
            }
            records.flip();
            b.addPartitions(FetchResponse.PartitionData.newBuilder().setTopic("topic-" + p).setPartition(p)
                .setHighWatermark(p * 1000L).setLogEndOffset(p * 1001L).setRecords(UnsafeByteOperations.unsafeWrap(records)));
        }
        return b.build();
    }

    /** Records every write gRPC's framer would receive. */
    private static final class Writes extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final List<Integer> sizes = new ArrayList<>();

        @Override
        public void write(int b) {
            bytes.write(b);
            sizes.add(1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
            sizes.add(len);
        }
    }

    @Test
    void drainedBytesAreProtobufsOwnEncodingInLargeWrites() throws IOException {
        for (FetchResponse sent : new FetchResponse[]{FetchResponse.getDefaultInstance(), response(1, 100, 1),
            response(6, 1 << 20, 2), response(3, 0, 3)}) {
            InputStream in = marshaller.stream(sent);
            assertThat(in).isInstanceOf(Drainable.class).isInstanceOf(KnownLength.class);
            assertThat(in.available()).isEqualTo(sent.getSerializedSize());
            Writes out = new Writes();
            int n = ((Drainable) in).drainTo(out);
            assertThat(n).isEqualTo(sent.getSerializedSize());
            assertThat(out.bytes.toByteArray()).isEqualTo(sent.toByteArray());
            assertThat(FetchResponse.parseFrom(out.bytes.toByteArray())).isEqualTo(sent);
            // drained once: nothing more
            assertThat(in.available()).isZero();
            assertThat(((Drainable) in).drainTo(new Writes())).isZero();
            assertThat(in.read()).isEqualTo(-1);
            if (sent.getSerializedSize() > 4 * LargeMessageMarshaller.CHUNK_BYTES) {
                // gRPC sizes its buffers by the writes: few large ones, not thousands of 4 KiB
                assertThat(out.sizes).hasSizeLessThan(sent.getSerializedSize() / LargeMessageMarshaller.CHUNK_BYTES + 10);
                assertThat(out.sizes.stream().mapToInt(Integer::intValue).max().orElse(0))
                    .isEqualTo(LargeMessageMarshaller.CHUNK_BYTES);
            }
        }
    }

    @Test
    void readThroughThePlainInputStreamMethodsGivesTheSameMessage() throws IOException {
        // the in-process transport reads the stream instead of draining it; the parse side aliases
        FetchResponse sent = response(4, 300_000, 4);
        try (InputStream in = marshaller.stream(sent)) {
            assertThat(marshaller.parse(in)).isEqualTo(sent);
        }
        try (InputStream in = marshaller.stream(sent)) {
            int first = in.read();
            assertThat(first).isEqualTo(sent.toByteArray()[0] & 0xff);
            assertThat(in.available()).isEqualTo(sent.getSerializedSize() - 1);
            byte[] rest = in.readAllBytes();
            assertThat(rest.length).isEqualTo(sent.getSerializedSize() - 1);
            assertThat(in.read()).isEqualTo(-1);
        }
    }

    @Test
    void largeResponsesKeepsAnEarlierRequestMarshallerAndChangesOnlyTheFetchResponses() {
        BindableService service = new BrokerServiceGrpc.BrokerServiceImplBase() {
        };
        ServerServiceDefinition aliased = AliasingMarshaller.aliasingRequests(service.bindService(),
            BrokerServiceGrpc.getProduceMethod(), ProduceRequest.getDefaultInstance());
        ServerServiceDefinition both = LargeMessageMarshaller.largeResponses(aliased, BrokerServiceGrpc.getFetchMethod());

        MethodDescriptor<?, ?> fetch = both.getMethod(BrokerServiceGrpc.getFetchMethod().getFullMethodName()).getMethodDescriptor();
        assertThat(fetch.getResponseMarshaller()).isInstanceOf(LargeMessageMarshaller.class);
        assertThat(fetch.getRequestMarshaller()).isNotInstanceOf(LargeMessageMarshaller.class);
        MethodDescriptor<?, ?> produce = both.getMethod(BrokerServiceGrpc.getProduceMethod().getFullMethodName()).getMethodDescriptor();
        assertThat(produce.getRequestMarshaller()).isInstanceOf(AliasingMarshaller.class);
        assertThat(produce.getResponseMarshaller()).isNotInstanceOf(LargeMessageMarshaller.class);
        assertThat(both.getMethods()).hasSameSizeAs(service.bindService().getMethods());
        // the handlers are the service's own, bound to the descriptor's methods
        assertThat(both.getServiceDescriptor().getMethods()).contains(fetch, produce);
    }

    @Test
    void aMethodOfAnotherServiceIsRefused() {
        ServerServiceDefinition service = new BrokerServiceGrpc.BrokerServiceImplBase() {
        }.bindService();
        MethodDescriptor<FetchResponse, FetchResponse> stranger = MethodDescriptor.<FetchResponse, FetchResponse>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("other.Service/Fetch")
            .setRequestMarshaller(ProtoUtils.marshaller(FetchResponse.getDefaultInstance()))
            .setResponseMarshaller(ProtoUtils.marshaller(FetchResponse.getDefaultInstance())).build();
        assertThatThrownBy(() -> LargeMessageMarshaller.largeResponses(service, stranger))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("other.Service/Fetch");
    }

    @Test
    void theHeapRecordsOfAParsedResponseAreSentUnchanged() throws IOException {
        // a follower's or a test's response built from heap ByteStrings goes through the same path
        FetchResponse sent = FetchResponse.newBuilder().setCorrelationId(1).addPartitions(FetchResponse.PartitionData.newBuilder()
            .setTopic("t").setRecords(ByteString.copyFrom(new byte[3 * LargeMessageMarshaller.CHUNK_BYTES + 17]))).build();
        Writes out = new Writes();
        ((Drainable) marshaller.stream(sent)).drainTo(out);
        assertThat(out.bytes.toByteArray()).isEqualTo(sent.toByteArray());
    }
}
