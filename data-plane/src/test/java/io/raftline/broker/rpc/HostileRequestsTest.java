package io.raftline.broker.rpc;

import static io.raftline.broker.rpc.HostileValues.counts;
import static io.raftline.broker.rpc.HostileValues.ints;
import static io.raftline.broker.rpc.HostileValues.longs64;
import static io.raftline.broker.rpc.HostileValues.names;
import static io.raftline.broker.rpc.HostileValues.oneError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.raftline.broker.replica.ReplicaManagerFixture;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.TopicPartition;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.DeleteRecordsRequest;
import io.raftline.protocol.broker.DeleteRecordsResponse;
import io.raftline.protocol.broker.DescribeLogsRequest;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import io.raftline.protocol.broker.ListOffsetsRequest;
import io.raftline.protocol.broker.OffsetsForLeaderEpochRequest;
import io.raftline.protocol.broker.ProduceRequest;
import io.raftline.protocol.broker.ProduceResponse;
import io.raftline.protocol.broker.ReplicaChecksumsRequest;
import io.raftline.record.CompressionType;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Requests whose fields a hostile or broken client chose (negative and huge partition ids, offsets, epochs and sizes,
 * empty, oversized and unicode topic names, empty and duplicated repeated fields, unknown acks), over in-process gRPC
 * into a real broker's data plane (admission, replica manager, partitions, logs of topic {@code t}, 2 partitions).
 * Each is answered, never failed with UNKNOWN or INTERNAL; every error in the answer is one code other than UNKNOWN,
 * with a message; and nothing changed unless the answer says it did: no record stored, no log start moved, no
 * partition created, the admission and the fetch purgatory back to idle.
 */
@Timeout(60)
class HostileRequestsTest {

    private static final long SEED = 20261204L;
    private static final int STORED = 3;

    @TempDir
    Path tmp;

    private ReplicaManagerFixture fixture;
    private InProcessDataPlane dataPlane;
    private BrokerServiceGrpc.BrokerServiceBlockingStub blocking;
    private BrokerServiceGrpc.BrokerServiceStub async;

    @BeforeEach
    void start() throws Exception {
        fixture = new ReplicaManagerFixture(tmp, 2, List.of(1), List.of(1));
        dataPlane = new InProcessDataPlane(fixture, new RequestLimits(5, 20, 1 << 20, 5, 1 << 20));
        blocking = BrokerServiceGrpc.newBlockingStub(dataPlane.channel);
        async = BrokerServiceGrpc.newStub(dataPlane.channel);
        fixture.partition(0).appendAsLeader(batch(STORED), 1);
    }

    @AfterEach
    void stop() throws Exception {
        dataPlane.close();
        fixture.close();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Generators

    /** A partition id: 0 or 1 (which exist) often, else hostile. */
    private static Gen<Integer> partitions() {
        return ints().mix(Generate.pick(List.of(0, 1)), 40);
    }

    private static Gen<String> topics() {
        return names(ReplicaManagerFixture.TOPIC);
    }

    private static <T> Gen<List<T>> repeated(Gen<T> element) {
        return lists().of(element).ofSizes(counts(50));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Unary RPCs

    @Test
    void listOffsets() {
        Gen<ListOffsetsRequest.PartitionQuery> query = topics().zip(partitions(), longs64(), ints(),
            (t, p, ts, epoch) -> ListOffsetsRequest.PartitionQuery.newBuilder().setTopic(t).setPartition(p).setTimestamp(ts)
                .setCurrentLeaderEpoch(epoch).build());
        Gen<ListOffsetsRequest> requests = repeated(query).zip(replicaIds(), (qs, replica) ->
            ListOffsetsRequest.newBuilder().setReplicaId(replica).addAllPartitions(qs).build());
        qt().withFixedSeed(SEED).withExamples(300).forAll(requests).checkAssert(request -> {
            var response = unary(() -> blocking.listOffsets(request));
            assertThat(response.getPartitionsCount()).isEqualTo(request.getPartitionsCount());
            response.getPartitionsList().forEach(r -> oneError(r.getError()));
            assertNothingChanged();
        });
    }

    @Test
    void offsetsForLeaderEpoch() {
        Gen<OffsetsForLeaderEpochRequest.PartitionEpoch> query = topics().zip(partitions(), ints(), ints(),
            (t, p, current, epoch) -> OffsetsForLeaderEpochRequest.PartitionEpoch.newBuilder().setTopic(t).setPartition(p)
                .setCurrentLeaderEpoch(current).setLeaderEpoch(epoch).build());
        Gen<OffsetsForLeaderEpochRequest> requests = repeated(query).zip(replicaIds(), (qs, replica) ->
            OffsetsForLeaderEpochRequest.newBuilder().setReplicaId(replica).addAllPartitions(qs).build());
        qt().withFixedSeed(SEED).withExamples(300).forAll(requests).checkAssert(request -> {
            var response = unary(() -> blocking.offsetsForLeaderEpoch(request));
            assertThat(response.getPartitionsCount()).isEqualTo(request.getPartitionsCount());
            response.getPartitionsList().forEach(r -> oneError(r.getError()));
            assertNothingChanged();
        });
    }

    @Test
    void describeLogsAndReplicaChecksums() {
        Gen<TopicPartition> tp = topics().zip(partitions(), (t, p) -> TopicPartition.newBuilder().setTopic(t).setPartition(p)
            .build());
        Gen<DescribeLogsRequest> describe = repeated(tp).zip(longs64().mix(Generate.constant(0L), 50), (tps, index) ->
            DescribeLogsRequest.newBuilder().addAllPartitions(tps).setMinMetadataIndex(Math.min(index, 0)).build());
        qt().withFixedSeed(SEED).withExamples(200).forAll(describe).checkAssert(request -> {
            var response = unary(() -> blocking.describeLogs(request));
            response.getReplicasList().forEach(r -> oneError(r.getError()));
            assertNothingChanged();
        });
        Gen<ReplicaChecksumsRequest.Range> range = topics().zip(partitions(), longs64(), longs64(),
            (t, p, from, to) -> ReplicaChecksumsRequest.Range.newBuilder().setTopic(t).setPartition(p).setFromOffset(from)
                .setToOffset(to).build());
        qt().withFixedSeed(SEED).withExamples(200).forAll(repeated(range)).checkAssert(ranges -> {
            var response = unary(() -> blocking.replicaChecksums(ReplicaChecksumsRequest.newBuilder()
                .addAllPartitions(ranges).build()));
            assertThat(response.getPartitionsCount()).isEqualTo(ranges.size());
            response.getPartitionsList().forEach(r -> oneError(r.getError()));
            assertNothingChanged();
        });
    }

    /**
     * Offsets at or below the log start change nothing, above the high watermark are refused: the only offsets the
     * generator can pick that delete anything are the high watermark itself ({@code -1} or {@value #STORED}) and
     * those between, so a success is the only outcome allowed to move the log start.
     */
    @Test
    void deleteRecords() {
        Gen<DeleteRecordsRequest.PartitionOffset> offset = topics().zip(partitions(), longs64(),
            (t, p, o) -> DeleteRecordsRequest.PartitionOffset.newBuilder().setTopic(t).setPartition(p).setOffset(o).build());
        Gen<DeleteRecordsRequest> requests = repeated(offset).zip(integers().between(-5, 2_000), (os, timeout) ->
            DeleteRecordsRequest.newBuilder().addAllPartitions(os).setTimeoutMs(timeout).build());
        qt().withFixedSeed(SEED).withExamples(300).forAll(requests).checkAssert(request -> {
            long[] startBefore = {fixture.partition(0).log().logStartOffset(), fixture.partition(1).log().logStartOffset()};
            DeleteRecordsResponse response = unary(() -> blocking.withDeadlineAfter(10, TimeUnit.SECONDS)
                .deleteRecords(request));
            assertThat(response.getPartitionsCount()).isEqualTo(request.getPartitionsCount());
            boolean[] deleted = new boolean[2];
            for (DeleteRecordsResponse.PartitionResult r : response.getPartitionsList()) {
                oneError(r.getError());
                if (r.getError().getCode() == ErrorCode.NONE && r.getTopic().equals(ReplicaManagerFixture.TOPIC)) {
                    deleted[r.getPartition()] = true;
                }
            }
            for (int p = 0; p < 2; p++) {
                if (!deleted[p]) {
                    assertThat(fixture.partition(p).log().logStartOffset()).as("log start of partition %d", p)
                        .isEqualTo(startBefore[p]);
                }
            }
            assertNothingChangedButTheLogStart();
        });
    }

    // ---------------------------------------------------------------------------------------------------------
    // Streams

    /**
     * Waits short enough to be answered in the test ({@code max_wait_ms} up to 200, sizes anything); followers'
     * replica ids included (any caller may claim one here, as on a plaintext listener).
     */
    @Test
    void fetch() {
        Gen<FetchRequest.FetchPartition> part = topics().zip(partitions(), longs64(), ints(), ints(),
            (t, p, offset, epoch, max) -> FetchRequest.FetchPartition.newBuilder().setTopic(t).setPartition(p)
                .setFetchOffset(offset).setCurrentLeaderEpoch(epoch).setPartitionMaxBytes(max).setLastFetchedEpoch(epoch)
                .build());
        Gen<FetchRequest> requests = repeated(part).zip(integers().between(-5, 200), ints(), ints(), (ps, wait, min, max) ->
            FetchRequest.newBuilder().setReplicaId(-1).setMaxWaitMs(wait).setMinBytes(min).setMaxBytes(max)
                .addAllPartitions(ps).build());
        qt().withFixedSeed(SEED).withExamples(300).forAll(requests, consumerOrReplica()).checkAssert((request, replica) -> {
            FetchResponse response = fetchOnce(request.toBuilder().setReplicaId(replica).build());
            oneError(response.getError());
            for (FetchResponse.PartitionData pd : response.getPartitionsList()) {
                oneError(pd.getError());
            }
            assertNothingChanged();
        });
    }

    /**
     * A fetch that asks to wait as long as an int allows for more bytes than exist, from a client that then goes
     * away: the broker does not keep it parked for the rest of those 24 days.
     */
    @Test
    void aParkedFetchOfAClientThatWentAwayIsForgotten() throws Exception {
        FetchRequest forever = FetchRequest.newBuilder().setReplicaId(-1).setMaxWaitMs(Integer.MAX_VALUE)
            .setMinBytes(Integer.MAX_VALUE).setMaxBytes(Integer.MAX_VALUE)
            .addPartitions(FetchRequest.FetchPartition.newBuilder().setTopic(ReplicaManagerFixture.TOPIC).setPartition(1)
                .setFetchOffset(0).setPartitionMaxBytes(Integer.MAX_VALUE).setCurrentLeaderEpoch(-1)).build();
        List<ClientCallStreamObserver<FetchRequest>> streams = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            CompletableFuture<ClientCallStreamObserver<FetchRequest>> stream = new CompletableFuture<>();
            StreamObserver<FetchRequest> requests = async.fetch(new ClientResponseObserver<FetchRequest, FetchResponse>() {
                @Override
                public void beforeStart(ClientCallStreamObserver<FetchRequest> call) {
                    stream.complete(call);
                }

                @Override
                public void onNext(FetchResponse value) {
                }

                @Override
                public void onError(Throwable t) {
                }

                @Override
                public void onCompleted() {
                }
            });
            requests.onNext(forever);
            streams.add(stream.get(10, TimeUnit.SECONDS));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> parkedFetches() == 20);
        streams.forEach(s -> s.cancel("the client went away", null));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
            assertThat(parkedFetches()).as("fetches parked for clients that went away").isZero());
    }

    private int parkedFetches() {
        return fixture.replicaManager.fetchManager().parkedFetches(false);
    }

    /** Produce requests with hostile acks, timeouts, topics, partitions and empty or duplicated partitions. */
    @Test
    void produce() {
        Gen<ProduceRequest.PartitionData> part = topics().zip(partitions(), Generate.pick(List.of(0, 1, 1, 2)),
            (t, p, records) -> ProduceRequest.PartitionData.newBuilder().setTopic(t).setPartition(p)
                .setRecords(records == 0 ? ByteString.EMPTY : ByteString.copyFrom(batch(records))).build());
        // acks=0 is never answered: sent as 1 here
        Gen<Integer> acks = ints().mix(Generate.pick(List.of(-1, 1)), 50).map(a -> a == 0 ? 1 : a);
        Gen<ProduceRequest> requests = repeated(part).zip(acks, integers().between(-5, 5_000), (ps, a, timeout) ->
            ProduceRequest.newBuilder().setCorrelationId(7).setAcks(a).setTimeoutMs(timeout).addAllPartitions(ps).build());
        java.util.Map<ErrorCode, Integer> seen = new java.util.EnumMap<>(ErrorCode.class);
        qt().withFixedSeed(SEED).withExamples(300).forAll(requests).checkAssert(request -> {
            long[] before = {fixture.partition(0).logEndOffset(), fixture.partition(1).logEndOffset()};
            ProduceResponse response = produceOnce(request);
            long[] stored = new long[2];
            for (ProduceResponse.PartitionResult r : response.getPartitionsList()) {
                oneError(r.getError());
                seen.merge(r.getError().getCode(), 1, Integer::sum);
                if (r.getError().getCode() == ErrorCode.NONE) {
                    assertThat(r.getTopic()).isEqualTo(ReplicaManagerFixture.TOPIC);
                    assertThat(Math.abs(request.getAcks())).as("stored for acks %d", request.getAcks()).isLessThanOrEqualTo(1);
                    stored[r.getPartition()] = 1;
                }
            }
            for (int p = 0; p < 2; p++) {
                if (stored[p] == 0) {
                    assertThat(fixture.partition(p).logEndOffset()).as("partition %d, refused", p).isEqualTo(before[p]);
                }
            }
            awaitIdle();
        });
        assertThat(seen).as("outcomes").containsKeys(ErrorCode.NONE, ErrorCode.INVALID_REQUEST,
            ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.INVALID_RECORD);
    }

    /**
     * One partition named twice in one produce: its batches would collapse into one append (the first dropped without
     * an error), so the request is refused whole and nothing is stored.
     */
    @Test
    void aPartitionNamedTwiceInOneProduceIsRefusedWhole() {
        ProduceRequest.PartitionData once = ProduceRequest.PartitionData.newBuilder().setTopic(ReplicaManagerFixture.TOPIC)
            .setPartition(0).setRecords(ByteString.copyFrom(batch(1))).build();
        ProduceRequest request = ProduceRequest.newBuilder().setCorrelationId(8).setAcks(1).setTimeoutMs(5_000)
            .addPartitions(once).addPartitions(once.toBuilder().setRecords(ByteString.copyFrom(batch(2))))
            .addPartitions(once.toBuilder().setPartition(1)).build();
        long[] before = {fixture.partition(0).logEndOffset(), fixture.partition(1).logEndOffset()};
        ProduceResponse response = produceOnce(request);
        assertThat(response.getPartitionsList()).isNotEmpty().allSatisfy(r -> {
            assertThat(r.getError().getCode()).isEqualTo(ErrorCode.INVALID_REQUEST);
            assertThat(r.getError().getMessage()).contains("twice");
        });
        assertThat(fixture.partition(0).logEndOffset()).isEqualTo(before[0]);
        assertThat(fixture.partition(1).logEndOffset()).isEqualTo(before[1]);
        awaitIdle();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Checks

    /** -1 (a consumer) mostly, else any id a client may claim. */
    private static Gen<Integer> replicaIds() {
        return ints().mix(Generate.constant(-1), 60);
    }

    private static Gen<Integer> consumerOrReplica() {
        return replicaIds();
    }

    /** The call's answer; an RPC failure other than a clear refusal (UNKNOWN, INTERNAL: an exception) fails. */
    static <T> T unary(Supplier<T> call) {
        try {
            return call.get();
        } catch (StatusRuntimeException e) {
            assertThat(e.getStatus().getCode()).as("the RPC failed: %s", e.getStatus())
                .isNotIn(Status.Code.UNKNOWN, Status.Code.INTERNAL);
            throw new AssertionError("the RPC failed instead of answering: " + e.getStatus(), e);
        }
    }

    private void assertNothingChanged() {
        assertNothingChangedButTheLogStart();
        assertThat(fixture.partition(0).log().logStartOffset()).isZero();
    }

    private void assertNothingChangedButTheLogStart() {
        assertThat(fixture.replicaManager.partitions()).as("partitions on the broker").hasSize(2);
        assertThat(fixture.partition(0).logEndOffset()).as("records stored").isEqualTo(STORED);
        assertThat(fixture.partition(1).logEndOffset()).isZero();
        awaitIdle();
    }

    private void awaitIdle() {
        await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2))
            .until(() -> dataPlane.rpc.queuedProduceRequests() == 0 && dataPlane.rpc.queuedProduceBytes() == 0
                && parkedFetches() == 0);
    }

    private FetchResponse fetchOnce(FetchRequest request) {
        return once(async::fetch, request);
    }

    private ProduceResponse produceOnce(ProduceRequest request) {
        return once(async::produce, request);
    }

    /** Sends one request on a stream of its own and returns its answer (failing if the stream ends without one). */
    private static <Q, R> R once(java.util.function.Function<StreamObserver<R>, StreamObserver<Q>> open, Q request) {
        CompletableFuture<R> answer = new CompletableFuture<>();
        StreamObserver<Q> requests = open.apply(StreamAnswers.into(answer));
        requests.onNext(request);
        try {
            return unary(() -> {
                try {
                    return answer.get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    if (e.getCause() instanceof StatusRuntimeException s) {
                        throw s;
                    }
                    throw new AssertionError("the stream failed", e.getCause());
                } catch (Exception e) {
                    throw new AssertionError("no answer within 10 s", e);
                }
            });
        } finally {
            requests.onCompleted();
        }
    }

    private static ByteBuffer batch(int records) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1,
            64);
        for (int i = 0; i < records; i++) {
            b.append(1_000 + i, null, ("hostile " + i).getBytes(StandardCharsets.UTF_8), null);
        }
        return b.build();
    }
}
