package io.raftline.broker.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.stub.StreamObserver;
import io.raftline.broker.replica.ReplicaManagerFixture;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.ProduceRequest;
import io.raftline.protocol.broker.ProduceResponse;
import io.raftline.record.CompressionType;
import io.raftline.record.RecordBatch;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Produce requests carrying malformed batches, over in-process gRPC into a real broker's produce path (admission,
 * replica manager, partitions, logs): each bad batch is refused for its own partition with one error code, the rest
 * of the request is answered, and the broker-wide admission bound gets every slot and byte back.
 */
class ProduceValidationTest {

    /** Fewer than the bad requests sent below: a leak of one slot per bad request would stop the broker. */
    private static final int MAX_QUEUED_REQUESTS = 20;

    @TempDir
    Path tmp;

    private ReplicaManagerFixture fixture;
    private DataPlaneRpc rpc;
    private InProcessDataPlane dataPlane;
    private BrokerServiceGrpc.BrokerServiceStub stub;
    private long correlation;

    @BeforeEach
    void start() throws Exception {
        fixture = new ReplicaManagerFixture(tmp, 2, List.of(1), List.of(1));
        dataPlane = new InProcessDataPlane(fixture, new RequestLimits(5, MAX_QUEUED_REQUESTS, 1 << 20, 5, 1 << 20));
        rpc = dataPlane.rpc;
        stub = BrokerServiceGrpc.newStub(dataPlane.channel);
    }

    @AfterEach
    void stop() throws Exception {
        dataPlane.close();
        fixture.close();
    }

    @Test
    void aBatchWhoseLengthIsShorterThanAHeaderIsRefusedAloneAndReleasesItsAdmission() throws Exception {
        int badRequests = 3 * MAX_QUEUED_REQUESTS;
        for (int i = 0; i < badRequests; i++) {
            ByteBuffer bad = batch(-1, 0, "bad-" + i);
            bad.putInt(RecordBatch.LENGTH_OFFSET, 5);
            ProduceResponse response = produce(request(1, part(1, batch(-1, 0, "good-" + i)), part(0, bad)));
            assertThat(response.getPartitionsList()).as("request %d", i).hasSize(2);
            assertThat(response.getPartitions(0).getPartition()).isEqualTo(1);
            assertThat(response.getPartitions(0).getError().getCode()).as("the well-formed partition of request %d", i)
                .isEqualTo(ErrorCode.NONE);
            assertThat(response.getPartitions(0).getBaseOffset()).isEqualTo(i);
            assertThat(response.getPartitions(1).getError().getCode()).as("the corrupt partition of request %d", i)
                .isEqualTo(ErrorCode.CORRUPT_MESSAGE);
            assertThat(response.getPartitions(1).getError().getMessage()).contains("smaller than a header");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> rpc.queuedProduceRequests() == 0 && rpc.queuedProduceBytes() == 0);
        assertThat(fixture.partition(0).logEndOffset()).as("nothing of the corrupt batches was stored").isZero();

        ProduceResponse good = produce(request(1, part(0, batch(-1, 0, "after"))));
        assertThat(good.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(good.getPartitions(0).getBaseOffset()).isZero();
    }

    @Test
    void aCorruptRetryOfAStoredIdempotentBatchIsNotAnsweredAsItsDuplicate() throws Exception {
        ProduceResponse first = produce(request(-1, part(0, batch(42, 0, "once"))));
        assertThat(first.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NONE);

        // The same producer id, epoch and sequence, with a byte of the record flipped: the CRC no longer matches.
        ByteBuffer corruptRetry = batch(42, 0, "once");
        int last = corruptRetry.limit() - 2;
        corruptRetry.put(last, (byte) (corruptRetry.get(last) ^ 0x20));
        ProduceResponse retry = produce(request(-1, part(0, corruptRetry)));
        assertThat(retry.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.CORRUPT_MESSAGE);
        assertThat(retry.getPartitions(0).getError().getMessage()).contains("CRC");

        ProduceResponse wellFormedRetry = produce(request(-1, part(0, batch(42, 0, "once"))));
        assertThat(wellFormedRetry.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(wellFormedRetry.getPartitions(0).getBaseOffset()).as("answered with the stored offset").isZero();
        assertThat(fixture.partition(0).logEndOffset()).as("stored once").isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> rpc.queuedProduceRequests() == 0 && rpc.queuedProduceBytes() == 0);
    }

    /** One batch of one record; {@code producerId} -1 for a producer that is not idempotent. */
    private static ByteBuffer batch(long producerId, int sequence, String value) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, producerId,
            (short) (producerId < 0 ? -1 : 0), producerId < 0 ? -1 : sequence, 64);
        b.append(1_000, null, value.getBytes(StandardCharsets.UTF_8), null);
        return b.build();
    }

    private static ProduceRequest.PartitionData part(int partition, ByteBuffer records) {
        return ProduceRequest.PartitionData.newBuilder().setTopic(ReplicaManagerFixture.TOPIC).setPartition(partition)
            .setRecords(ByteString.copyFrom(records.duplicate())).build();
    }

    private ProduceRequest request(int acks, ProduceRequest.PartitionData... parts) {
        return ProduceRequest.newBuilder().setCorrelationId(++correlation).setAcks(acks).setTimeoutMs(5_000)
            .addAllPartitions(List.of(parts)).build();
    }

    /** Sends one request on a stream of its own and returns its answer (failing if the stream ends without one). */
    private ProduceResponse produce(ProduceRequest request) throws Exception {
        CompletableFuture<ProduceResponse> answer = new CompletableFuture<>();
        StreamObserver<ProduceRequest> requests = stub.produce(new StreamObserver<>() {
            @Override
            public void onNext(ProduceResponse value) {
                answer.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                answer.completeExceptionally(new IllegalStateException("the stream ended without an answer"));
            }
        });
        requests.onNext(request);
        try {
            return answer.get(10, TimeUnit.SECONDS);
        } finally {
            requests.onCompleted();
        }
    }
}
