package io.raftline.broker.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;

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

    /**
     * A mutation corpus made from valid batches (every codec, 1-20 records): a byte flipped, the bytes cut short, a
     * header int overwritten, bytes appended. Each produce is either refused whole with one of the codes for bad input
     * and stores nothing, or (a mutation the broker may accept: the base offset or leader epoch, which it stamps
     * itself) stored whole; the RPC never fails, and every admission slot and byte comes back.
     */
    @Test
    void mutatedBatchesAreRefusedWholeOrStoredWholeAndLeakNothing() throws Exception {
        java.util.Map<ErrorCode, Integer> seen = new java.util.EnumMap<>(ErrorCode.class);
        qt().withFixedSeed(20261203L).withExamples(300)
            .forAll(arbitrary().enumValues(CompressionType.class), integers().between(1, 20), integers().between(0, 3),
                integers().between(0, Integer.MAX_VALUE))
            .checkAssert((codec, records, kind, random) -> {
                ByteBuffer valid = batch(codec, records);
                ByteBuffer mutated = mutate(valid, kind, random);
                long before = fixture.partition(0).logEndOffset();
                ProduceResponse response;
                try {
                    response = produce(request(1, part(0, mutated)));
                } catch (Exception e) {
                    throw new AssertionError("the produce RPC itself failed for mutation " + kind + "/" + random, e);
                }
                ErrorCode code = response.getPartitions(0).getError().getCode();
                seen.merge(code, 1, Integer::sum);
                long after = fixture.partition(0).logEndOffset();
                if (code == ErrorCode.NONE) {
                    assertThat(after - before).as("stored whole").isEqualTo((long) records);
                } else {
                    assertThat(code).as(response.getPartitions(0).getError().getMessage()).isIn(ErrorCode.CORRUPT_MESSAGE,
                        ErrorCode.INVALID_RECORD, ErrorCode.UNSUPPORTED_FORMAT, ErrorCode.MESSAGE_TOO_LARGE);
                    assertThat(response.getPartitions(0).getError().getMessage()).isNotBlank();
                    assertThat(after).as("nothing stored").isEqualTo(before);
                }
            });
        // the corpus exercises both outcomes and more than one refusal
        assertThat(seen).as("outcomes").containsKeys(ErrorCode.NONE, ErrorCode.CORRUPT_MESSAGE);
        assertThat(seen.size()).as("outcomes: %s", seen).isGreaterThanOrEqualTo(3);
        await().atMost(Duration.ofSeconds(10)).until(() -> rpc.queuedProduceRequests() == 0 && rpc.queuedProduceBytes() == 0);
        ProduceResponse good = produce(request(1, part(0, batch(-1, 0, "after"))));
        assertThat(good.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
    }

    private static ByteBuffer batch(CompressionType codec, int records) {
        RecordBatchBuilder b = new RecordBatchBuilder(codec, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1, 64);
        for (int i = 0; i < records; i++) {
            b.append(1_000 + i, i % 2 == 0 ? null : ("k" + i).getBytes(StandardCharsets.UTF_8),
                ("value " + i + " of a mutated batch").getBytes(StandardCharsets.UTF_8), null);
        }
        return b.build();
    }

    /** kind 0: flip a byte; 1: cut short; 2: overwrite an int of the header; 3: append bytes. */
    private static ByteBuffer mutate(ByteBuffer valid, int kind, int random) {
        byte[] bytes = new byte[valid.remaining()];
        valid.duplicate().get(bytes);
        switch (kind) {
            case 0 -> bytes[random % bytes.length] ^= (byte) (1 + random % 255);
            case 1 -> bytes = java.util.Arrays.copyOf(bytes, random % bytes.length);
            case 2 -> {
                int at = (random % (RecordBatch.HEADER_SIZE / 4)) * 4;
                ByteBuffer.wrap(bytes).putInt(at, random * 31 + 7);
            }
            default -> {
                byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1 + random % 64);
                bytes = longer;
            }
        }
        return ByteBuffer.wrap(bytes);
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
        StreamObserver<ProduceRequest> requests = stub.produce(StreamAnswers.into(answer));
        requests.onNext(request);
        try {
            return answer.get(10, TimeUnit.SECONDS);
        } finally {
            requests.onCompleted();
        }
    }
}
