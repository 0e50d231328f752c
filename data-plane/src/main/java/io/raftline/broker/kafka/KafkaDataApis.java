package io.raftline.broker.kafka;

import io.raftline.broker.fetchsession.FetchSessionCache;
import io.raftline.broker.metrics.BrokerMetrics;
import io.raftline.broker.replica.FetchManager;
import io.raftline.broker.replica.Partition;
import io.raftline.broker.replica.ReplicaManager;
import io.raftline.broker.replica.TopicPartition;
import io.raftline.broker.quota.ClientQuotas;
import io.raftline.common.SystemTime;
import io.raftline.broker.rpc.BrokerRpcService;
import io.raftline.broker.security.RequestAuthorizer;
import io.raftline.broker.fetchsession.AuthorizedReads;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.ListOffsetsRequest;
import io.raftline.protocol.broker.ListOffsetsResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Produce, Fetch, ListOffsets and DescribeProducers of the Kafka listener, over the replica manager the gRPC listener
 * uses. Record batches pass through as the same bytes: Raftline stores Kafka's record batch v2, so a produced batch is
 * appended as it arrived and a fetch answers with the stored bytes.
 */
public final class KafkaDataApis {

    private final ReplicaManager replicaManager;
    private final BrokerRpcService service;
    private final int fetchMaxBytes;
    private final ClientQuotas quotas;
    private final BrokerMetrics metrics;
    private final FetchSessionCache sessions;
    /** ACLs, for the partitions a fetch session reads without the request naming them. */
    private final RequestAuthorizer authorizer;

    /**
     * {@code fetchMaxBytes}: the broker's fetch.max.bytes, which caps every answer whatever the client asks;
     * {@code metrics}: where produce and fetch traffic counts, as the gRPC listener's does (null: not counted);
     * {@code sessions}: the broker's fetch sessions; {@code authorizer}: the broker's ACLs.
     */
    public KafkaDataApis(ReplicaManager replicaManager, BrokerRpcService service, int fetchMaxBytes, ClientQuotas quotas,
                         BrokerMetrics metrics, FetchSessionCache sessions, RequestAuthorizer authorizer) {
        this.authorizer = authorizer;
        this.metrics = metrics;
        this.sessions = sessions;
        this.quotas = quotas;
        this.replicaManager = replicaManager;
        this.service = service;
        this.fetchMaxBytes = fetchMaxBytes;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Produce

    CompletableFuture<ApiMessage> produce(KafkaRequest request) {
        ProduceRequestData produce = (ProduceRequestData) request.body().data();
        if (produce.transactionalId() != null) {
            return CompletableFuture.completedFuture(produceError(produce, Errors.UNSUPPORTED_VERSION));
        }
        if (produce.acks() < -1 || produce.acks() > 1) {
            // else stored as acks=1
            return CompletableFuture.completedFuture(produceError(produce, Errors.INVALID_REQUIRED_ACKS));
        }
        Map<TopicPartition, ByteBuffer> data = new LinkedHashMap<>();
        for (ProduceRequestData.TopicProduceData t : produce.topicData()) {
            for (ProduceRequestData.PartitionProduceData p : t.partitionData()) {
                ByteBuffer records = p.records() instanceof MemoryRecords m ? m.buffer() : ByteBuffer.allocate(0);
                // A private array per partition, positioned at 0, as the gRPC path hands the log.
                ByteBuffer copy = ByteBuffer.allocate(records.remaining());
                copy.put(records.duplicate()).flip();
                data.put(new TopicPartition(t.name(), p.index()), copy);
            }
        }
        short acks = produce.acks();
        long startNs = SystemTime.INSTANCE.nanoseconds();
        RequestTiming timing = RequestTiming.start(metrics, "produce", startNs);
        CompletableFuture<Map<TopicPartition, ReplicaManager.ProduceResult>> appended =
            replicaManager.appendRecords(acks, Math.max(1, produce.timeoutMs()), data);
        // request_percentage counts the broker's own work (the local append), not the wait for the replicas
        long localNs = SystemTime.INSTANCE.nanoseconds() - startNs;
        // requests per topic and partition errors: recordProduced, below
        appended.whenComplete((results, error) -> timing.done(localNs, results == null ? null : List.of()));
        return appended.thenApply(results -> {
            if (metrics != null) {
                metrics.recordProduced(data, results);
            }
            long throttleMs = throttleMs(ClientQuotas.Kind.PRODUCE, request, request.sizeBytes(), localNs);
            return acks == 0 ? null : produceResponse(results).setThrottleTimeMs((int) throttleMs);
        });
    }

    private static ProduceResponseData produceResponse(Map<TopicPartition, ReplicaManager.ProduceResult> results) {
        ProduceResponseData out = new ProduceResponseData();
        Map<String, ProduceResponseData.TopicProduceResponse> topics = new LinkedHashMap<>();
        results.forEach((tp, r) -> {
            ProduceResponseData.TopicProduceResponse topic = topics.computeIfAbsent(tp.topic(),
                name -> new ProduceResponseData.TopicProduceResponse().setName(name));
            topic.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse()
                .setIndex(tp.partition()).setErrorCode(KafkaErrors.code(r.error()))
                .setErrorMessage(r.error() == ErrorCode.NONE ? null : r.message())
                .setBaseOffset(r.baseOffset()).setLogAppendTimeMs(r.logAppendTimeMs()).setLogStartOffset(r.logStartOffset()));
        });
        topics.values().forEach(out.responses()::add);
        return out;
    }

    private static ProduceResponseData produceError(ProduceRequestData produce, Errors error) {
        ProduceResponseData out = new ProduceResponseData();
        for (ProduceRequestData.TopicProduceData t : produce.topicData()) {
            ProduceResponseData.TopicProduceResponse topic = new ProduceResponseData.TopicProduceResponse().setName(t.name());
            for (ProduceRequestData.PartitionProduceData p : t.partitionData()) {
                topic.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse().setIndex(p.index())
                    .setErrorCode(error.code()).setBaseOffset(-1));
            }
            out.responses().add(topic);
        }
        return out;
    }

    /**
     * The request metrics of one produce or fetch, under the API names the gRPC listener uses, so that a Kafka
     * client's requests count where an SDK client's do: in flight, latency, the local and remote phases (the send
     * phase is the connection's: not timed here), requests per topic, and each partition answered with an error.
     */
    private record RequestTiming(BrokerMetrics metrics, String api, long startNs) {
        static RequestTiming start(BrokerMetrics metrics, String api, long startNs) {
            if (metrics != null) {
                metrics.requestStarted(api);
            }
            return new RequestTiming(metrics, api, startNs);
        }

        /**
         * {@code outcomes}: each partition's topic and error, counted as requests per topic and errors (empty when
         * counted elsewhere); null when the request failed as a whole.
         */
        void done(long localNs, List<Map.Entry<String, ErrorCode>> outcomes) {
            if (metrics == null) {
                return;
            }
            long total = SystemTime.INSTANCE.nanoseconds() - startNs;
            metrics.recordPhase(api, BrokerMetrics.Phase.LOCAL, localNs);
            metrics.recordPhase(api, BrokerMetrics.Phase.REMOTE, Math.max(0, total - localNs));
            metrics.recordLatency(api, total);
            if (outcomes == null) {
                metrics.recordError(api, ErrorCode.UNKNOWN);
            } else {
                outcomes.stream().map(Map.Entry::getKey).distinct().forEach(topic -> metrics.recordRequest(api, topic));
                outcomes.stream().filter(o -> o.getValue() != ErrorCode.NONE).forEach(o -> metrics.recordError(api, o.getValue()));
            }
            metrics.requestDone(api);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Fetch

    /**
     * A consumer's fetch, in an incremental fetch session when it asks for one (KIP-227, v7+): a full fetch creates
     * a session, whose id the answer carries; an incremental one names only the partitions whose position or limits
     * changed and those to forget, reads every partition of the session, and is answered with those that have
     * something new ({@link FetchSessionCache}). The long poll waits as for a full fetch: on the session's partitions.
     * A session is the broker's, not the connection's: a client may go on with it on another connection.
     */
    CompletableFuture<ApiMessage> fetch(KafkaRequest request) {
        FetchRequestData fetch = (FetchRequestData) request.body().data();
        List<FetchManager.PartitionFetch> requested = new ArrayList<>();
        for (FetchRequestData.FetchTopic t : fetch.topics()) {
            for (FetchRequestData.FetchPartition p : t.partitions()) {
                requested.add(new FetchManager.PartitionFetch(new TopicPartition(t.topic(), p.partition()), p.fetchOffset(),
                    p.partitionMaxBytes(), p.currentLeaderEpoch(), p.lastFetchedEpoch()));
            }
        }
        List<TopicPartition> forgotten = new ArrayList<>();
        for (FetchRequestData.ForgottenTopic t : fetch.forgottenTopicsData()) {
            for (int partition : t.partitions()) {
                forgotten.add(new TopicPartition(t.topic(), partition));
            }
        }
        // Always a consumer's fetch: Kafka's followers are not served here.
        FetchSessionCache.Context session = sessions.open(fetch.sessionId(), fetch.sessionEpoch(), false, requested, forgotten);
        if (session.refusal() != null) {
            Errors error = session.refusal() == FetchSessionCache.Refusal.FETCH_SESSION_ID_NOT_FOUND
                ? Errors.FETCH_SESSION_ID_NOT_FOUND : Errors.INVALID_FETCH_SESSION_EPOCH;
            return CompletableFuture.completedFuture(new FetchResponseData().setErrorCode(error.code())
                .setSessionId(FetchSessionCache.NO_SESSION));
        }
        // The request's own topics were authorized before it got here; a session's other partitions are authorized
        // at every fetch too (an ACL removed since they were named takes effect; a session's id is no key).
        AuthorizedReads reads = AuthorizedReads.of(authorizer, session.partitions());
        int maxBytes = fetch.maxBytes() <= 0 ? fetchMaxBytes : Math.min(fetch.maxBytes(), fetchMaxBytes);
        // a refused partition is answered at once, as any error is
        FetchManager.Request ours = new FetchManager.Request(-1, -1, reads.anyDenied() ? 0 : fetch.maxWaitMs(),
            fetch.minBytes(), maxBytes, reads.toRead());
        long startNs = SystemTime.INSTANCE.nanoseconds();
        RequestTiming timing = RequestTiming.start(metrics, "fetch_consumer", startNs);
        CompletableFuture<List<FetchManager.PartitionData>> read = replicaManager.fetchManager().fetch(ours);
        CompletableFuture<List<FetchManager.PartitionData>> fetched = reads.anyDenied() ? read.thenApply(reads::merge)
            : read;
        long localNs = SystemTime.INSTANCE.nanoseconds() - startNs;
        fetched.whenComplete((data, error) -> timing.done(localNs, data == null ? null
            : data.stream().map(pd -> Map.entry(pd.tp().topic(), pd.result().error())).toList()));
        CompletableFuture<ApiMessage> answer = fetched.thenApply(data -> {
            long bytes = 0;
            for (FetchManager.PartitionData pd : data) {
                bytes += pd.result().data() == null ? 0 : pd.result().data().sizeInBytes();
            }
            return fetchResponse(sessions.answer(session, data), request.version(), metrics).setSessionId(session.sessionId())
                .setThrottleTimeMs((int) throttleMs(ClientQuotas.Kind.FETCH, request, bytes, localNs));
        });
        // cancelled when the connection closed: the parked fetch under it is forgotten too
        answer.whenComplete((v, e) -> {
            if (answer.isCancelled()) {
                read.cancel(false);
            }
        });
        return answer;
    }

    /**
     * The throttle time of a Kafka client past its quota (the principal is its connection's; the client id is the
     * request header's). The answer carries it in ThrottleTimeMs, which Kafka's clients wait out (KIP-219), and the
     * connection reads nothing more from the client until it has passed.
     */
    private long throttleMs(ClientQuotas.Kind kind, KafkaRequest request, long bytes, long requestNs) {
        String clientId = request.header().clientId() == null ? "" : request.header().clientId();
        return quotas == null ? 0 : quotas.throttleMs(kind, request.principal(), clientId, bytes, requestNs);
    }

    private static FetchResponseData fetchResponse(List<FetchManager.PartitionData> data, short version,
                                                   BrokerMetrics metrics) {
        FetchResponseData out = new FetchResponseData().setErrorCode(Errors.NONE.code());
        Map<String, FetchResponseData.FetchableTopicResponse> topics = new LinkedHashMap<>();
        for (FetchManager.PartitionData pd : data) {
            Partition.ReadResult r = pd.result();
            FetchResponseData.FetchableTopicResponse topic = topics.computeIfAbsent(pd.tp().topic(),
                name -> new FetchResponseData.FetchableTopicResponse().setTopic(name));
            FetchResponseData.PartitionData p = new FetchResponseData.PartitionData()
                .setPartitionIndex(pd.tp().partition())
                .setErrorCode(KafkaErrors.code(r.error()))
                .setHighWatermark(r.highWatermark())
                // no transactions: everything below the high watermark is stable
                .setLastStableOffset(r.highWatermark())
                .setLogStartOffset(r.logStartOffset())
                .setAbortedTransactions(null);
            StoredRecords records = r.data() == null ? null : new StoredRecords(r.data());
            p.setRecords(records == null ? MemoryRecords.EMPTY : records);
            if (metrics != null && records != null && records.sizeInBytes() > 0) {
                metrics.recordFetch(pd.tp().topic(), records.sizeInBytes(), records.recordCount(), false);
            }
            if ((r.error() == ErrorCode.NOT_LEADER || r.error() == ErrorCode.FENCED_LEADER_EPOCH) && version >= 12) {
                p.currentLeader().setLeaderId(pd.leaderId()).setLeaderEpoch(pd.leaderEpoch());
            }
            topic.partitions().add(p);
        }
        out.responses().addAll(topics.values());
        return out;
    }

    // ---------------------------------------------------------------------------------------------------------
    // ListOffsets

    CompletableFuture<ApiMessage> listOffsets(KafkaRequest request) {
        ListOffsetsRequestData list = (ListOffsetsRequestData) request.body().data();
        ListOffsetsRequest.Builder ours = ListOffsetsRequest.newBuilder().setReplicaId(-1);
        for (ListOffsetsRequestData.ListOffsetsTopic t : list.topics()) {
            for (ListOffsetsRequestData.ListOffsetsPartition p : t.partitions()) {
                ours.addPartitions(ListOffsetsRequest.PartitionQuery.newBuilder().setTopic(t.name())
                    .setPartition(p.partitionIndex()).setTimestamp(p.timestamp()).setCurrentLeaderEpoch(p.currentLeaderEpoch()));
            }
        }
        return Unary.call(service::listOffsets, ours.build()).thenApply(r -> {
            ListOffsetsResponseData out = new ListOffsetsResponseData();
            Map<String, ListOffsetsResponseData.ListOffsetsTopicResponse> topics = new LinkedHashMap<>();
            for (ListOffsetsResponse.PartitionResult p : r.getPartitionsList()) {
                topics.computeIfAbsent(p.getTopic(), name -> new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(name))
                    .partitions().add(new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                        .setPartitionIndex(p.getPartition()).setErrorCode(KafkaApis.code(p.getError()))
                        .setOffset(p.getOffset()).setTimestamp(p.getTimestamp())
                        // v4+ carries the leader epoch
                        .setLeaderEpoch(p.getError().getCode() == ErrorCode.NONE && request.version() >= 4 ? p.getLeaderEpoch() : -1));
            }
            out.topics().addAll(topics.values());
            return out;
        });
    }

    // ---------------------------------------------------------------------------------------------------------
    // DescribeProducers: each partition's idempotent producers, from its leader's producer state

    CompletableFuture<ApiMessage> describeProducers(KafkaRequest request) {
        DescribeProducersRequestData req = (DescribeProducersRequestData) request.body().data();
        DescribeProducersResponseData out = new DescribeProducersResponseData();
        for (DescribeProducersRequestData.TopicRequest t : req.topics()) {
            DescribeProducersResponseData.TopicResponse topic = new DescribeProducersResponseData.TopicResponse().setName(t.name());
            for (int index : t.partitionIndexes()) {
                topic.partitions().add(producersOf(new TopicPartition(t.name(), index)));
            }
            out.topics().add(topic);
        }
        return CompletableFuture.completedFuture(out);
    }

    private DescribeProducersResponseData.PartitionResponse producersOf(TopicPartition tp) {
        DescribeProducersResponseData.PartitionResponse out = new DescribeProducersResponseData.PartitionResponse()
            .setPartitionIndex(tp.partition());
        Partition partition = replicaManager.partition(tp).filter(Partition::isLeader).orElse(null);
        if (partition == null) {
            ReplicaManager.ProduceResult notHere = replicaManager.notHere(tp);
            return out.setErrorCode(KafkaErrors.code(notHere.error())).setErrorMessage(notHere.message());
        }
        // no transactions: no coordinator epoch, no open transaction
        for (var p : partition.activeProducers()) {
            out.activeProducers().add(new DescribeProducersResponseData.ProducerState().setProducerId(p.producerId())
                .setProducerEpoch(p.epoch()).setLastSequence(p.lastSequence()).setLastTimestamp(p.lastTimestamp())
                .setCoordinatorEpoch(-1).setCurrentTxnStartOffset(-1));
        }
        return out;
    }
}
