package io.raftline.tests.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.raftline.client.admin.NewTopic;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.ProduceRequest;
import io.raftline.protocol.broker.ProduceResponse;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.ControllerServiceGrpc;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.DescribeQuorumRequest;
import io.raftline.record.CompressionType;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import io.raftline.tests.cluster.PrometheusText;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bound on a request message of each gRPC listener of a real node: broker.listener reads at most
 * socket.request.max.bytes (2 MiB here), controller.listener at most 64 MiB. A message above it fails with
 * RESOURCE_EXHAUSTED from its size, nothing of it is stored or decided, and the listener serves the next request.
 */
@Timeout(300)
class MessageSizeIT {

    private static final String TOPIC = "sizes";
    private static final int MAX_REQUEST = 2 << 20;

    @Test
    void aMessageAboveEachListenersBoundIsRefusedAndTheListenerServesTheNext() throws Exception {
        try (TestCluster cluster = TestCluster.builder().combined(1)
            .config("socket.request.max.bytes", Integer.toString(MAX_REQUEST)).start()) {
            cluster.admin().createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            TestNode node = cluster.nodes().get(0);
            ManagedChannel broker = NettyChannelBuilder.forAddress("127.0.0.1", node.brokerPort()).usePlaintext().build();
            ManagedChannel controller = NettyChannelBuilder.forAddress("127.0.0.1", node.controllerPort()).usePlaintext()
                .build();
            try {
                BrokerServiceGrpc.BrokerServiceStub stub = BrokerServiceGrpc.newStub(broker);
                TestCluster.await(() -> {
                    Object r = produce(stub, batch("warm-up"));
                    return r instanceof ProduceResponse p && p.getPartitions(0).getError().getCode() == ErrorCode.NONE;
                }, Duration.ofSeconds(60), TOPIC + " to take produce");

                // broker.listener: a produce request of 3 MiB against socket.request.max.bytes = 2 MiB
                Object tooLarge = produce(stub, ByteString.copyFrom(new byte[3 << 20]));
                assertThat(tooLarge).as("the answer to a 3 MiB produce").isInstanceOf(StatusRuntimeException.class);
                assertThat(((StatusRuntimeException) tooLarge).getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                TestCluster.await(() -> PrometheusText.sum(node.scrapeMetrics(), "raftline_produce_queued_requests") == 0
                        && PrometheusText.sum(node.scrapeMetrics(), "raftline_produce_queued_bytes") == 0,
                    Duration.ofSeconds(30), "the broker to hold no produce request");
                Object after = produce(stub, batch("after"));
                assertThat(after).isInstanceOf(ProduceResponse.class);
                assertThat(((ProduceResponse) after).getPartitions(0).getBaseOffset()).as("only the warm-up was stored before")
                    .isEqualTo(1);

                // controller.listener: a create-topics request of 65 MiB against its 64 MiB
                ControllerServiceGrpc.ControllerServiceBlockingStub admin = ControllerServiceGrpc.newBlockingStub(controller)
                    .withDeadlineAfter(60, TimeUnit.SECONDS);
                CreateTopicsRequest huge = CreateTopicsRequest.newBuilder().addTopics(CreatableTopic.newBuilder()
                    .setName("huge").setNumPartitions(1).setReplicationFactor(1)
                    .putConfigs("retention.ms", "1".repeat(65 << 20))).build();
                StatusRuntimeException refused = catchThrowableOfType(StatusRuntimeException.class,
                    () -> admin.createTopics(huge));
                assertThat(refused).as("the answer to a 65 MiB create-topics").isNotNull();
                assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                assertThat(ControllerServiceGrpc.newBlockingStub(controller).withDeadlineAfter(30, TimeUnit.SECONDS)
                    .describeQuorum(DescribeQuorumRequest.getDefaultInstance()).getLeaderId()).isEqualTo(node.id());
                assertThat(cluster.admin().listTopics().names().get()).doesNotContain("huge");
            } finally {
                broker.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                controller.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    private static ByteString batch(String value) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1, 64);
        b.append(1_000, null, value.getBytes(StandardCharsets.UTF_8), null);
        return ByteString.copyFrom(b.build());
    }

    /** The answer to one produce on a stream of its own: its response, or the stream's failure. */
    private static Object produce(BrokerServiceGrpc.BrokerServiceStub stub, ByteString records) {
        return MalformedProduceIT.answer(stub, ProduceRequest.newBuilder().setAcks(1).setTimeoutMs(5_000).addPartitions(
            ProduceRequest.PartitionData.newBuilder().setTopic(TOPIC).setPartition(0).setRecords(records)).build());
    }
}
