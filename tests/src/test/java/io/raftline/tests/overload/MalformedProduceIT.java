package io.raftline.tests.overload;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.common.SystemTime;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.ProduceRequest;
import io.raftline.protocol.broker.ProduceResponse;
import io.raftline.record.CompressionType;
import io.raftline.record.RecordBatch;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import io.raftline.tests.cluster.PrometheusText;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real broker sent produce requests whose batch says it is shorter than a batch header, as an attacker would
 * (issue 20, item 4): three times as many as its {@code queued.max.requests}, each with a well-formed partition
 * beside the bad one. Each bad batch is refused CORRUPT_MESSAGE, its neighbour is stored and answered, the broker's
 * queued-produce gauges return to 0, and a producer is served afterwards.
 */
@Timeout(300)
class MalformedProduceIT {

    private static final String TOPIC = "malformed";
    private static final int MAX_QUEUED_REQUESTS = 8;

    @Test
    void batchesShorterThanAHeaderAreRefusedAndTheBrokerKeepsTakingProduce() throws Exception {
        try (TestCluster cluster = TestCluster.builder().combined(1)
            .config("queued.max.requests", Integer.toString(MAX_QUEUED_REQUESTS)).start()) {
            cluster.admin().createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get();
            TestNode node = cluster.nodes().get(0);
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", node.brokerPort()).usePlaintext().build();
            try {
                BrokerServiceGrpc.BrokerServiceStub stub = BrokerServiceGrpc.newStub(channel);
                TestCluster.await(() -> {
                    ProduceResponse r = produce(stub, part(1, batch("warm-up")));
                    return r != null && r.getPartitions(0).getError().getCode() == ErrorCode.NONE;
                }, Duration.ofSeconds(60), TOPIC + "-1 to take produce");

                for (int i = 0; i < 3 * MAX_QUEUED_REQUESTS; i++) {
                    ByteBuffer bad = batch("bad-" + i);
                    bad.putInt(RecordBatch.LENGTH_OFFSET, 5);
                    ProduceResponse r = produce(stub, part(1, batch("good-" + i)), part(0, bad));
                    assertThat(r).as("an answer to bad request %d", i).isNotNull();
                    assertThat(r.getPartitions(0).getError().getCode()).as("request %d, partition 1", i).isEqualTo(ErrorCode.NONE);
                    assertThat(r.getPartitions(1).getError().getCode()).as("request %d, partition 0", i)
                        .isEqualTo(ErrorCode.CORRUPT_MESSAGE);
                }
                TestCluster.await(() -> PrometheusText.sum(node.scrapeMetrics(), "raftline_produce_queued_requests") == 0
                        && PrometheusText.sum(node.scrapeMetrics(), "raftline_produce_queued_bytes") == 0,
                    Duration.ofSeconds(30), "the broker to hold no produce request");
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }

            try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(cluster.clientProperties(
                "acks", "all", "linger.ms", "0", "delivery.timeout.ms", "30000"), new StringSerializer(), new StringSerializer())) {
                long offset = producer.send(new ProducerRecord<>(TOPIC, 0, null, "after")).get(60, TimeUnit.SECONDS).offset();
                assertThat(offset).as("nothing of the bad batches was stored").isZero();
            }
        }
    }

    private static ByteBuffer batch(String value) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1, 64);
        b.append(SystemTime.INSTANCE.milliseconds(), null, value.getBytes(StandardCharsets.UTF_8), null);
        return b.build();
    }

    private static ProduceRequest.PartitionData part(int partition, ByteBuffer records) {
        return ProduceRequest.PartitionData.newBuilder().setTopic(TOPIC).setPartition(partition)
            .setRecords(ByteString.copyFrom(records.duplicate())).build();
    }

    /** One request on a stream of its own: its answer, or null if none came in 10 s or the stream failed. */
    private static ProduceResponse produce(BrokerServiceGrpc.BrokerServiceStub stub, ProduceRequest.PartitionData... parts) {
        Object answer = answer(stub, ProduceRequest.newBuilder().setAcks(1).setTimeoutMs(5_000).addAllPartitions(List.of(parts))
            .build());
        return answer instanceof ProduceResponse r ? r : null;
    }

    /**
     * One request on a stream of its own: its answer, the stream's failure (a {@link Throwable}), or null when the
     * stream ended without an answer or none came in 10 s.
     */
    static Object answer(BrokerServiceGrpc.BrokerServiceStub stub, ProduceRequest request) {
        CompletableFuture<Object> answer = new CompletableFuture<>();
        StreamObserver<ProduceRequest> requests = stub.produce(new StreamObserver<>() {
            @Override
            public void onNext(ProduceResponse value) {
                answer.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                answer.complete(t);
            }

            @Override
            public void onCompleted() {
                answer.complete(null);
            }
        });
        requests.onNext(request);
        try {
            return answer.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return null;
        } finally {
            try {
                requests.onCompleted();
            } catch (IllegalStateException closed) {
                // the call already failed
            }
        }
    }
}
