package io.raftline.broker.rpc;

import io.grpc.Status;
import io.raftline.grpc.TransportSecurity;
import java.util.function.Predicate;
import com.google.protobuf.ByteString;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogChecksum;
import io.raftline.broker.log.LogException;
import io.raftline.broker.fetchsession.AuthorizedReads;
import io.raftline.broker.fetchsession.FetchSessionCache;
import io.raftline.broker.metrics.BrokerMetrics;
import io.raftline.broker.replica.FetchManager;
import io.raftline.broker.replica.Partition;
import io.raftline.broker.replica.ReplicaManager;
import io.raftline.broker.replica.TopicPartition;
import io.raftline.broker.quota.ClientQuotas;
import io.raftline.broker.security.RequestAuthorizer;
import io.raftline.record.Records;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.ResourceType;
import io.raftline.common.SystemTime;
import io.raftline.metadata.image.BrokerRegistration;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.HostPort;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.DeleteRecordsRequest;
import io.raftline.protocol.broker.DeleteRecordsResponse;
import io.raftline.protocol.broker.DescribeLogsRequest;
import io.raftline.protocol.broker.DescribeLogsResponse;
import io.raftline.protocol.broker.EpochEndOffset;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import io.raftline.protocol.broker.LeaderHint;
import io.raftline.protocol.broker.ListOffsetsRequest;
import io.raftline.protocol.broker.ListOffsetsResponse;
import io.raftline.protocol.broker.OffsetsForLeaderEpochRequest;
import io.raftline.protocol.broker.OffsetsForLeaderEpochResponse;
import io.raftline.protocol.broker.ProduceRequest;
import io.raftline.protocol.broker.ProduceResponse;
import io.raftline.protocol.broker.ReplicaChecksumsRequest;
import io.raftline.protocol.broker.ReplicaChecksumsResponse;
import io.raftline.protocol.metadata.Endpoint;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The data-plane half of the broker's gRPC service (produce, fetch, offsets; {@link BrokerRpcService} adds
 * the rest): thin adapters from wire messages to the replica manager.
 * Record batches stay bytes: a produce hands the request's bytes to the log, a fetch sends the stored bytes.
 */
public abstract class DataPlaneRpc extends BrokerServiceGrpc.BrokerServiceImplBase {

    protected final ReplicaManager replicaManager;
    protected final BrokerMetrics metrics;
    private final RequestLimits limits;
    private final ProduceAdmission admission;
    /** Buffers for the record bytes of fetch responses. */
    private final StoredBytes storedBytes = new StoredBytes();

    /** Who may fetch as a replica (replica_id >= 0): under mTLS node principals only, else anyone. */
    private final Predicate<String> replicaCallers;
    /** ACLs on client requests (off: everything allowed). */
    protected final RequestAuthorizer authorizer;

    /** Client quotas (null: none). */
    private final ClientQuotas quotas;
    /** The broker's incremental fetch sessions, which followers and consumers fetch in (null: every fetch sessionless). */
    private final FetchSessionCache fetchSessions;

    protected DataPlaneRpc(ReplicaManager replicaManager, BrokerMetrics metrics, RequestLimits limits,
                           Predicate<String> replicaCallers) {
        this(replicaManager, metrics, limits, replicaCallers, RequestAuthorizer.OFF, null, null);
    }

    protected DataPlaneRpc(ReplicaManager replicaManager, BrokerMetrics metrics, RequestLimits limits,
                           Predicate<String> replicaCallers, RequestAuthorizer authorizer, ClientQuotas quotas,
                           FetchSessionCache fetchSessions) {
        this.fetchSessions = fetchSessions;
        this.authorizer = authorizer;
        this.quotas = quotas;
        this.replicaCallers = replicaCallers;
        this.replicaManager = replicaManager;
        this.metrics = metrics;
        this.limits = limits;
        this.admission = new ProduceAdmission(limits.queuedMaxRequests(), limits.queuedMaxRequestBytes());
    }

    static Error error(ErrorCode code, String message) {
        return Error.newBuilder().setCode(code).setMessage(message == null ? "" : message).build();
    }

    static final Error NO_ERROR = Error.getDefaultInstance();

    /** Answers a request the caller may not make with its refusal in the response's {@code error}: nothing is done. */
    @SuppressWarnings("unchecked")
    static <R extends com.google.protobuf.Message> void refuse(R prototype, Error denied, StreamObserver<R> responses) {
        com.google.protobuf.Descriptors.FieldDescriptor field = prototype.getDescriptorForType().findFieldByName("error");
        responses.onNext((R) prototype.toBuilder().setField(field, denied).build());
        responses.onCompleted();
    }
    /** How long a delete-records request waits for the ISR when it names no timeout. */
    static final int DEFAULT_DELETE_RECORDS_TIMEOUT_MS = 30_000;

    /** The broker-wide produce admission, which the Kafka listener shares. */
    public ProduceAdmission produceAdmission() {
        return admission;
    }

    /** Produce requests this broker holds now (read, not answered) and the stream waiting for room. */
    public int queuedProduceRequests() {
        return admission.requests();
    }

    public long queuedProduceBytes() {
        return admission.bytes();
    }

    public int produceStreamsWaitingForRoom() {
        return admission.waiting();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Produce

    @Override
    public StreamObserver<ProduceRequest> produce(StreamObserver<ProduceResponse> responses) {
        ProduceStream stream = new ProduceStream((ServerCallStreamObserver<ProduceResponse>) responses);
        stream.start();
        return stream;
    }

    /**
     * One producer connection's stream. It asks gRPC for one message at a time, and only while it has fewer than
     * {@code produce.stream.max.in.flight.requests} unanswered and holds a reservation of the broker-wide
     * {@link ProduceAdmission}; otherwise gRPC stops reading it and flow control holds the producer back.
     *
     * <p>Locking: the state below is guarded by the call's monitor (which {@link #send} also takes). The admission
     * is called with that monitor held only through {@link ProduceAdmission#reserveOrWait}, which calls nothing back;
     * releases (which grant other streams, taking their monitors) run with no stream monitor held.
     */
    private final class ProduceStream implements StreamObserver<ProduceRequest>, ProduceAdmission.Waiter {
        private final ServerCallStreamObserver<ProduceResponse> call;
        private int inFlight;
        /** A reservation is held and one message was asked for. */
        private boolean demand;
        /** Queued in the admission, waiting for room. */
        private boolean queued;
        /** The client finished sending (complete the call once nothing is in flight) or went away. */
        private boolean halfClosed;
        private boolean closed;

        ProduceStream(ServerCallStreamObserver<ProduceResponse> call) {
            this.call = call;
            call.disableAutoRequest();
            call.setOnCancelHandler(this::close);
        }

        void start() {
            synchronized (call) {
                pump();
            }
        }

        /** Asks for the next message if this stream and the broker have room. Call's monitor held. */
        private void pump() {
            if (closed || halfClosed || demand || queued || inFlight >= limits.produceInFlightPerStream()) {
                return;
            }
            if (admission.reserveOrWait(this)) {
                demand = true;
                call.request(1);
            } else {
                queued = true;
            }
        }

        @Override
        public void granted() {
            boolean unwanted;
            synchronized (call) {
                queued = false;
                unwanted = closed || halfClosed || call.isCancelled();
                if (!unwanted) {
                    demand = true;
                    call.request(1);
                }
            }
            if (unwanted) {
                admission.cancelReservation();
            }
        }

        @Override
        public void onNext(ProduceRequest request) {
            long size = request.getSerializedSize();
            synchronized (call) {
                demand = false;
                inFlight++;
                admission.arrived(size);
                pump();
            }
            long startNs = SystemTime.INSTANCE.nanoseconds();
            String principal = quotas == null ? null : TransportSecurity.principal();
            String clientId = quotas == null ? null : TransportSecurity.clientId();
            metrics.requestStarted("produce");
            Map<TopicPartition, ByteBuffer> data = new LinkedHashMap<>();
            CompletableFuture<Map<TopicPartition, ReplicaManager.ProduceResult>> appended;
            // acks other than these would be stored as acks=1: refused whole, as Kafka does
            io.raftline.protocol.Error badRequest = request.getAcks() >= -1 && request.getAcks() <= 1 ? null
                : error(ErrorCode.INVALID_REQUEST, "acks must be -1 (all), 0 or 1, not " + request.getAcks());
            try {
                Map<TopicPartition, ReplicaManager.ProduceResult> refused = new LinkedHashMap<>();
                TopicPartition twice = null;
                for (ProduceRequest.PartitionData pd : request.getPartitionsList()) {
                    TopicPartition tp = new TopicPartition(pd.getTopic(), pd.getPartition());
                    io.raftline.protocol.Error denied = badRequest != null ? badRequest
                        : authorizer.check(Operation.WRITE, ResourceType.TOPIC, pd.getTopic());
                    ByteBuffer previous;
                    if (denied != null) {
                        // refused whole: nothing of this partition is appended
                        refused.put(tp, ReplicaManager.ProduceResult.failed(denied.getCode(), denied.getMessage()));
                        previous = data.put(tp, ByteBuffer.allocate(0));
                    } else {
                        // A private copy: the log stamps offsets into these bytes in place.
                        previous = data.put(tp, ByteBuffer.wrap(pd.getRecords().toByteArray()));
                    }
                    if (previous != null && twice == null) {
                        twice = tp;
                    }
                }
                if (twice != null) {
                    // one partition twice would collapse into one append, the first batch dropped: refused whole
                    ReplicaManager.ProduceResult dup = ReplicaManager.ProduceResult.failed(ErrorCode.INVALID_REQUEST,
                        "partition " + twice.topic() + "-" + twice.partition() + " appears twice in one produce request");
                    data.replaceAll((tp, bytes) -> ByteBuffer.allocate(0));
                    data.keySet().forEach(tp -> refused.put(tp, dup));
                }
                Map<TopicPartition, ByteBuffer> allowed = data;
                if (!refused.isEmpty()) {
                    allowed = new LinkedHashMap<>(data);
                    allowed.keySet().removeAll(refused.keySet());
                }
                appended = allowed.isEmpty() ? CompletableFuture.completedFuture(new LinkedHashMap<>())
                    : replicaManager.appendRecords(request.getAcks(), Math.max(1, request.getTimeoutMs()), allowed);
                if (!refused.isEmpty()) {
                    appended = appended.thenApply(results -> {
                        Map<TopicPartition, ReplicaManager.ProduceResult> all = new LinkedHashMap<>(results);
                        all.putAll(refused);
                        return all;
                    });
                }
            } catch (RuntimeException e) {
                appended = CompletableFuture.failedFuture(e);
            }
            long localDoneNs = SystemTime.INSTANCE.nanoseconds();
            // This request is answered once and its admission released once, whatever happened above (at once, or
            // before the delayed answer of a throttled one).
            appended.whenComplete((results, err) -> {
                long remoteDoneNs = SystemTime.INSTANCE.nanoseconds();
                long throttleMs = quotas == null ? 0
                    : quotas.throttleMs(ClientQuotas.Kind.PRODUCE, principal, clientId, size, localDoneNs - startNs);
                Runnable answer = () -> {
                    try {
                        if (err == null) {
                            recordProduced(data, results);
                        } else {
                            data.keySet().forEach(tp -> metrics.recordError("produce", ErrorCode.UNKNOWN));
                        }
                        metrics.recordPhase("produce", BrokerMetrics.Phase.LOCAL, localDoneNs - startNs);
                        metrics.recordPhase("produce", BrokerMetrics.Phase.REMOTE, Math.max(0, remoteDoneNs - localDoneNs));
                        long sendNs = SystemTime.INSTANCE.nanoseconds();
                        if (request.getAcks() != 0) {
                            send(call, response(request, data, results, err).toBuilder()
                                .setThrottleTimeMs((int) throttleMs).build());
                            metrics.recordPhase("produce", BrokerMetrics.Phase.SEND, SystemTime.INSTANCE.nanoseconds() - sendNs);
                        }
                        metrics.recordLatency("produce", SystemTime.INSTANCE.nanoseconds() - startNs);
                    } finally {
                        metrics.requestDone("produce");
                        finished(size, throttleMs > 0);
                    }
                };
                if (throttleMs > 0) {
                    // over its quota: the answer (and this stream's next read, as its in-flight slot is held) waits out
                    // the throttle time; the broker-wide admission is given back now, for other producers
                    admission.release(size);
                    CompletableFuture.delayedExecutor(throttleMs, java.util.concurrent.TimeUnit.MILLISECONDS).execute(answer);
                } else {
                    answer.run();
                }
            });
        }

        /** {@code released}: the request's share of the broker-wide admission was already given back. */
        private void finished(long size, boolean released) {
            synchronized (call) {
                inFlight--;
            }
            if (!released) {
                admission.release(size);
            }
            synchronized (call) {
                if (halfClosed && inFlight == 0 && !closed) {
                    closed = true;
                    if (!call.isCancelled()) {
                        call.onCompleted();
                    }
                } else {
                    pump();
                }
            }
        }

        @Override
        public void onError(Throwable t) {
            // the client went away; in-flight appends finish on their own
            close();
        }

        @Override
        public void onCompleted() {
            boolean cancel;
            synchronized (call) {
                halfClosed = true;
                cancel = demand;
                demand = false;
                if (inFlight == 0 && !closed) {
                    closed = true;
                    if (!call.isCancelled()) {
                        call.onCompleted();
                    }
                }
            }
            if (cancel) {
                admission.cancelReservation();
            }
        }

        private void close() {
            boolean cancel;
            boolean wasQueued;
            synchronized (call) {
                closed = true;
                cancel = demand;
                demand = false;
                wasQueued = queued;
            }
            if (cancel) {
                admission.cancelReservation();
            }
            if (wasQueued) {
                // If the grant raced ahead of this, granted() sees the stream closed and hands the reservation back.
                admission.forget(this);
            }
        }
    }

    private ProduceResponse response(ProduceRequest request, Map<TopicPartition, ByteBuffer> data,
                                     Map<TopicPartition, ReplicaManager.ProduceResult> results, Throwable err) {
        ProduceResponse.Builder b = ProduceResponse.newBuilder().setCorrelationId(request.getCorrelationId());
        for (TopicPartition tp : data.keySet()) {
            ReplicaManager.ProduceResult r = err == null ? results.get(tp)
                : ReplicaManager.ProduceResult.failed(ErrorCode.UNKNOWN, err.toString());
            ProduceResponse.PartitionResult.Builder pr = ProduceResponse.PartitionResult.newBuilder()
                .setTopic(tp.topic())
                .setPartition(tp.partition())
                .setError(r.error() == ErrorCode.NONE ? NO_ERROR : error(r.error(), r.message()))
                .setBaseOffset(r.baseOffset())
                .setLogAppendTimeMs(r.logAppendTimeMs())
                .setLogStartOffset(r.logStartOffset());
            if (r.error() == ErrorCode.NOT_LEADER) {
                leaderHint(tp).ifPresent(pr::setCurrentLeader);
            }
            b.addPartitions(pr);
        }
        return b.build();
    }

    private void recordProduced(Map<TopicPartition, ByteBuffer> data, Map<TopicPartition, ReplicaManager.ProduceResult> results) {
        metrics.recordProduced(data, results);
    }

    static <T> void send(ServerCallStreamObserver<T> call, T message) {
        synchronized (call) {
            if (!call.isCancelled()) {
                try {
                    call.onNext(message);
                } catch (IllegalStateException e) {
                    // the stream was closed meanwhile
                }
            }
        }
    }

    Optional<LeaderHint> leaderHint(TopicPartition tp) {
        MetadataImage image = replicaManager.image();
        return image.topic(tp.topic())
            .map(t -> t.partition(tp.partition()))
            .filter(p -> p != null && p.hasLeader())
            .map(p -> {
                LeaderHint.Builder hint = LeaderHint.newBuilder().setLeaderId(p.leader()).setLeaderEpoch(p.leaderEpoch());
                image.broker(p.leader()).flatMap(b -> b.endpoint("broker"))
                    .ifPresent(e -> hint.setEndpoint(HostPort.newBuilder().setHost(e.getHost()).setPort(e.getPort())));
                return hint.build();
            });
    }

    // ---------------------------------------------------------------------------------------------------------
    // Fetch

    @Override
    public StreamObserver<FetchRequest> fetch(StreamObserver<FetchResponse> responses) {
        ServerCallStreamObserver<FetchResponse> call = (ServerCallStreamObserver<FetchResponse>) responses;
        // At most fetch.stream.max.in.flight.requests fetches per stream are read (and may park); the next is read
        // when one is answered. Consumers and followers send one at a time, so this only bounds a misbehaving client.
        call.disableAutoRequest();
        call.request(limits.fetchInFlightPerStream());
        // A client that goes away takes its parked fetches with it (else each waits out its max_wait_ms).
        java.util.Set<CompletableFuture<?>> parked = java.util.concurrent.ConcurrentHashMap.newKeySet();
        call.setOnCancelHandler(() -> parked.forEach(f -> f.cancel(false)));
        return new StreamObserver<>() {
            @Override
            public void onNext(FetchRequest request) {
                if (request.getReplicaId() >= 0 && !replicaCallers.test(TransportSecurity.principal())) {
                    // A client claiming a replica id would move the high watermark and the ISR: end its stream.
                    call.onError(Status.PERMISSION_DENIED.withDescription(TransportSecurity.principal()
                        + " may not fetch as replica " + request.getReplicaId() + ": only node principals may")
                        .asRuntimeException());
                    return;
                }
                boolean replication = request.getReplicaId() >= 0;
                boolean inSessions = fetchSessions != null && request.hasSessionEpoch();
                // A consumer's fetch in a session is authorized partition by partition below, over all the session
                // reads (AuthorizedReads, as the Kafka listener does); a sessionless one is refused whole.
                io.raftline.protocol.Error denied = !authorizer.enabled() ? null : replication
                    ? authorizer.checkCluster(Operation.CLUSTER_ACTION)
                    : inSessions ? null
                    : authorizer.checkAll(Operation.READ, ResourceType.TOPIC,
                        request.getPartitionsList().stream().map(FetchRequest.FetchPartition::getTopic).distinct().toList());
                if (denied != null) {
                    // nothing is read: the whole request is answered with the refusal
                    send(call, FetchResponse.newBuilder().setCorrelationId(request.getCorrelationId()).setError(denied).build());
                    synchronized (call) {
                        if (!call.isCancelled()) {
                            call.request(1);
                        }
                    }
                    return;
                }
                List<FetchManager.PartitionFetch> parts = new ArrayList<>(request.getPartitionsCount());
                for (FetchRequest.FetchPartition p : request.getPartitionsList()) {
                    parts.add(new FetchManager.PartitionFetch(new TopicPartition(p.getTopic(), p.getPartition()),
                        p.getFetchOffset(), p.getPartitionMaxBytes(), p.getCurrentLeaderEpoch(), p.getLastFetchedEpoch(),
                        p.getLogStartOffset()));
                }
                // A fetch session (a follower's or a consumer's): the session's partitions are read, the answer
                // carries what is new. Without session_epoch (older clients) the fetch is sessionless.
                FetchSessionCache.Context session = null;
                if (fetchSessions != null && !inSessions) {
                    // counted as the sessionless fetch it is (session 0, epoch -1); nothing else changes
                    fetchSessions.open(FetchSessionCache.NO_SESSION, FetchSessionCache.FINAL_EPOCH, replication, List.of(),
                        List.of());
                }
                if (inSessions) {
                    List<TopicPartition> forgotten = request.getForgottenList().stream()
                        .map(f -> new TopicPartition(f.getTopic(), f.getPartition())).toList();
                    session = fetchSessions.open(request.getSessionId(), request.getSessionEpoch(), replication, parts,
                        forgotten);
                    if (session.refusal() != null) {
                        ErrorCode refusal = session.refusal() == FetchSessionCache.Refusal.FETCH_SESSION_ID_NOT_FOUND
                            ? ErrorCode.FETCH_SESSION_ID_NOT_FOUND : ErrorCode.INVALID_FETCH_SESSION_EPOCH;
                        send(call, FetchResponse.newBuilder().setCorrelationId(request.getCorrelationId())
                            .setError(error(refusal, "fetch session " + request.getSessionId() + " at epoch "
                                + request.getSessionEpoch() + ": " + session.refusal())).build());
                        synchronized (call) {
                            if (!call.isCancelled()) {
                                call.request(1);
                            }
                        }
                        return;
                    }
                    parts = session.partitions();
                }
                FetchSessionCache.Context inSession = session;
                long startNs = SystemTime.INSTANCE.nanoseconds();
                String api = replication ? "fetch_follower" : "fetch_consumer";
                String principal = quotas == null || replication ? null : TransportSecurity.principal();
                String clientId = principal == null ? null : TransportSecurity.clientId();
                metrics.requestStarted(api);
                // fetch.max.bytes caps every answer, whatever the client asked (0 or less asks for no limit).
                int maxBytes = request.getMaxBytes() <= 0 ? limits.fetchMaxBytes()
                    : Math.min(request.getMaxBytes(), limits.fetchMaxBytes());
                // every partition a consumer's session reads, authorized now; a refused one is answered at once
                AuthorizedReads reads = inSession == null || replication ? null : AuthorizedReads.of(authorizer, parts);
                boolean anyDenied = reads != null && reads.anyDenied();
                FetchManager.Request fetch = new FetchManager.Request(request.getReplicaId(), request.getReplicaEpoch(),
                    anyDenied ? 0 : request.getMaxWaitMs(), request.getMinBytes(), maxBytes,
                    reads == null ? parts : reads.toRead());
                CompletableFuture<List<FetchManager.PartitionData>> read = replicaManager.fetchManager().fetch(fetch);
                parked.add(read);
                if (call.isCancelled()) {
                    read.cancel(false);
                }
                CompletableFuture<List<FetchManager.PartitionData>> fetched = anyDenied ? read.thenApply(reads::merge) : read;
                long localDoneNs = SystemTime.INSTANCE.nanoseconds();
                fetched.whenComplete((data, err) -> {
                    parked.remove(read);
                    if (read.isCancelled()) {
                        metrics.requestDone(api);
                        return;
                    }
                    long remoteDoneNs = SystemTime.INSTANCE.nanoseconds();
                    metrics.recordPhase(api, BrokerMetrics.Phase.LOCAL, localDoneNs - startNs);
                    metrics.recordPhase(api, BrokerMetrics.Phase.REMOTE, Math.max(0, remoteDoneNs - localDoneNs));
                    FetchResponse.Builder b = FetchResponse.newBuilder().setCorrelationId(request.getCorrelationId());
                    FetchResponse answer;
                    StoredBytes.Lease held = null;
                    long throttleMs = 0;
                    if (err != null) {
                        metrics.recordError(api, ErrorCode.UNKNOWN);
                        answer = b.setError(error(ErrorCode.UNKNOWN, err.toString())).build();
                    } else {
                        int bytes = 0;
                        for (FetchManager.PartitionData pd : data) {
                            bytes += pd.result().data() == null ? 0 : pd.result().data().sizeInBytes();
                        }
                        data.stream().map(pd -> pd.tp().topic()).distinct().forEach(t -> metrics.recordRequest(api, t));
                        if (principal != null) {
                            throttleMs = quotas.throttleMs(ClientQuotas.Kind.FETCH, principal, clientId, bytes,
                                localDoneNs - startNs);
                            b.setThrottleTimeMs((int) throttleMs);
                        }
                        // The records alias the lease's buffer: it goes back to the pool only after send() has
                        // serialized the response.
                        held = bytes > 0 ? storedBytes.lease(bytes) : null;
                        try {
                            List<FetchManager.PartitionData> answered = data;
                            if (inSession != null) {
                                answered = fetchSessions.answer(inSession, data);
                                b.setSessionId(inSession.sessionId());
                            }
                            for (FetchManager.PartitionData pd : answered) {
                                b.addPartitions(toWire(pd, held, api, replication));
                            }
                            answer = b.build();
                        } catch (UncheckedIOException e) {
                            // a segment file could not be read: one clear error rather than no answer
                            answer = FetchResponse.newBuilder().setCorrelationId(request.getCorrelationId())
                                .setError(error(ErrorCode.STORAGE_ERROR, "reading the log failed: " + e.getCause())).build();
                        }
                    }
                    FetchResponse response = answer;
                    StoredBytes.Lease lease = held;
                    Runnable reply = () -> {
                        long sendNs = SystemTime.INSTANCE.nanoseconds();
                        try {
                            send(call, response);
                        } finally {
                            if (lease != null) {
                                lease.close();
                            }
                        }
                        metrics.recordPhase(api, BrokerMetrics.Phase.SEND, SystemTime.INSTANCE.nanoseconds() - sendNs);
                        metrics.recordLatency(api, SystemTime.INSTANCE.nanoseconds() - startNs);
                        metrics.requestDone(api);
                        synchronized (call) {
                            if (!call.isCancelled()) {
                                call.request(1);
                            }
                        }
                    };
                    if (throttleMs > 0) {
                        // over its quota: the answer waits out the throttle time (and the client, waiting for it, too)
                        CompletableFuture.delayedExecutor(throttleMs, java.util.concurrent.TimeUnit.MILLISECONDS).execute(reply);
                    } else {
                        reply.run();
                    }
                });
            }

            @Override
            public void onError(Throwable t) {
                // the client went away
            }

            @Override
            public void onCompleted() {
                synchronized (call) {
                    if (!call.isCancelled()) {
                        call.onCompleted();
                    }
                }
            }
        };
    }

    private FetchResponse.PartitionData toWire(FetchManager.PartitionData pd, StoredBytes.Lease lease, String api,
                                               boolean replication) {
        Partition.ReadResult r = pd.result();
        metrics.recordError(api, r.error());
        FetchResponse.PartitionData.Builder b = FetchResponse.PartitionData.newBuilder()
            .setTopic(pd.tp().topic())
            .setPartition(pd.tp().partition())
            .setError(r.error() == ErrorCode.NONE ? NO_ERROR : error(r.error(), r.message()))
            .setHighWatermark(r.highWatermark())
            .setLogStartOffset(r.logStartOffset())
            .setLogEndOffset(r.logEndOffset());
        if (r.diverging()) {
            b.setDivergingEpoch(EpochEndOffset.newBuilder().setEpoch(r.divergingEpoch()).setEndOffset(r.divergingEndOffset()));
        }
        if (r.data() != null && r.data().sizeInBytes() > 0) {
            ByteString records = lease.wrap(r.data());
            b.setRecords(records);
            metrics.recordFetch(pd.tp().topic(), records.size(), Records.recordCount(records.asReadOnlyByteBuffer()),
                replication);
        }
        if (r.error() == ErrorCode.NOT_LEADER || r.error() == ErrorCode.FENCED_LEADER_EPOCH) {
            leaderHint(pd.tp()).ifPresent(b::setCurrentLeader);
        }
        return b.build();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Offsets

    @Override
    public void listOffsets(ListOffsetsRequest request, StreamObserver<ListOffsetsResponse> responses) {
        ListOffsetsResponse.Builder out = ListOffsetsResponse.newBuilder();
        for (ListOffsetsRequest.PartitionQuery q : request.getPartitionsList()) {
            TopicPartition tp = new TopicPartition(q.getTopic(), q.getPartition());
            ListOffsetsResponse.PartitionResult.Builder r = ListOffsetsResponse.PartitionResult.newBuilder()
                .setTopic(q.getTopic()).setPartition(q.getPartition()).setOffset(-1).setTimestamp(-1);
            Partition partition = replicaManager.partition(tp).orElse(null);
            io.raftline.protocol.Error denied = !authorizer.enabled() ? null : request.getReplicaId() >= 0
                ? authorizer.checkCluster(Operation.CLUSTER_ACTION)
                : authorizer.check(Operation.DESCRIBE, ResourceType.TOPIC, q.getTopic());
            if (denied != null) {
                r.setError(denied);
            } else if (partition == null || !partition.isLeader() || partition.log() == null) {
                ReplicaManager.ProduceResult why = partition == null ? replicaManager.notHere(tp)
                    : ReplicaManager.ProduceResult.failed(ErrorCode.NOT_LEADER, "not the leader of " + tp);
                r.setError(error(why.error(), why.message()));
                leaderHint(tp).ifPresent(r::setCurrentLeader);
            } else if (q.getCurrentLeaderEpoch() > 0 && q.getCurrentLeaderEpoch() < partition.leaderEpoch()) {
                r.setError(error(ErrorCode.FENCED_LEADER_EPOCH, "leader epoch " + q.getCurrentLeaderEpoch() + " is stale"));
            } else if (q.getTimestamp() != -2 && request.getReplicaId() < 0 && partition.highWatermarkBelowEpochStart()) {
                r.setError(error(ErrorCode.OFFSET_NOT_AVAILABLE, "the leader of " + tp + " at epoch " + partition.leaderEpoch()
                    + " has not yet learned a high watermark at or past its epoch start; retry"));
            } else {
                Log log = partition.log();
                long hw = partition.highWatermark();
                r.setLeaderEpoch(partition.leaderEpoch());
                if (q.getTimestamp() == -2) {
                    r.setOffset(log.logStartOffset());
                } else if (q.getTimestamp() == -1) {
                    r.setOffset(request.getReplicaId() >= 0 ? log.logEndOffset() : hw);
                } else {
                    log.offsetForTimestamp(q.getTimestamp())
                        .filter(found -> found.offset() < hw)
                        .ifPresent(found -> r.setOffset(found.offset()).setTimestamp(found.timestamp()));
                }
            }
            out.addPartitions(r);
        }
        responses.onNext(out.build());
        responses.onCompleted();
    }

    /**
     * Each partition's leader moves its log start offset, then answers once its ISR followed or {@code timeout_ms}
     * passed (see {@link ReplicaManager#deleteRecords}); the response waits for every partition.
     */
    @Override
    public void deleteRecords(DeleteRecordsRequest request, StreamObserver<DeleteRecordsResponse> responses) {
        int timeoutMs = request.getTimeoutMs() > 0 ? request.getTimeoutMs() : DEFAULT_DELETE_RECORDS_TIMEOUT_MS;
        List<DeleteRecordsRequest.PartitionOffset> asked = request.getPartitionsList();
        io.raftline.protocol.Error denied = authorizer.checkAll(Operation.DELETE, ResourceType.TOPIC,
            asked.stream().map(DeleteRecordsRequest.PartitionOffset::getTopic).distinct().toList());
        if (denied != null) {
            DeleteRecordsResponse.Builder out = DeleteRecordsResponse.newBuilder();
            asked.forEach(q -> out.addPartitions(DeleteRecordsResponse.PartitionResult.newBuilder().setTopic(q.getTopic())
                .setPartition(q.getPartition()).setLowWatermark(-1).setError(denied)));
            responses.onNext(out.build());
            responses.onCompleted();
            return;
        }
        List<CompletableFuture<ReplicaManager.DeleteRecordsResult>> results = new ArrayList<>(asked.size());
        for (DeleteRecordsRequest.PartitionOffset q : asked) {
            results.add(replicaManager.deleteRecords(new TopicPartition(q.getTopic(), q.getPartition()), q.getOffset(), timeoutMs));
        }
        CompletableFuture.allOf(results.toArray(new CompletableFuture<?>[0])).whenComplete((v, e) -> {
            DeleteRecordsResponse.Builder out = DeleteRecordsResponse.newBuilder();
            for (int i = 0; i < asked.size(); i++) {
                DeleteRecordsRequest.PartitionOffset q = asked.get(i);
                TopicPartition tp = new TopicPartition(q.getTopic(), q.getPartition());
                ReplicaManager.DeleteRecordsResult r = results.get(i).join();
                DeleteRecordsResponse.PartitionResult.Builder b = DeleteRecordsResponse.PartitionResult.newBuilder()
                    .setTopic(q.getTopic()).setPartition(q.getPartition()).setLowWatermark(r.lowWatermark());
                if (r.error() != ErrorCode.NONE) {
                    b.setError(error(r.error(), r.message()));
                    if (r.error() == ErrorCode.NOT_LEADER) {
                        leaderHint(tp).ifPresent(b::setCurrentLeader);
                    }
                }
                out.addPartitions(b);
            }
            responses.onNext(out.build());
            responses.onCompleted();
        });
    }

    @Override
    public void offsetsForLeaderEpoch(OffsetsForLeaderEpochRequest request,
                                      StreamObserver<OffsetsForLeaderEpochResponse> responses) {
        OffsetsForLeaderEpochResponse.Builder out = OffsetsForLeaderEpochResponse.newBuilder();
        for (OffsetsForLeaderEpochRequest.PartitionEpoch q : request.getPartitionsList()) {
            TopicPartition tp = new TopicPartition(q.getTopic(), q.getPartition());
            OffsetsForLeaderEpochResponse.PartitionResult.Builder r = OffsetsForLeaderEpochResponse.PartitionResult
                .newBuilder().setTopic(q.getTopic()).setPartition(q.getPartition()).setLeaderEpoch(-1).setEndOffset(-1);
            Partition partition = replicaManager.partition(tp).orElse(null);
            io.raftline.protocol.Error denied = !authorizer.enabled() ? null : request.getReplicaId() >= 0
                ? authorizer.checkCluster(Operation.CLUSTER_ACTION)
                : authorizer.check(Operation.DESCRIBE, ResourceType.TOPIC, q.getTopic());
            if (denied != null) {
                r.setError(denied);
            } else if (partition == null || !partition.isLeader() || partition.log() == null) {
                r.setError(error(ErrorCode.NOT_LEADER, "broker " + replicaManager.brokerId() + " is not the leader of " + tp));
            } else if (q.getCurrentLeaderEpoch() >= 0 && q.getCurrentLeaderEpoch() < partition.leaderEpoch()) {
                r.setError(error(ErrorCode.FENCED_LEADER_EPOCH, "leader epoch " + q.getCurrentLeaderEpoch() + " is stale"));
            } else {
                partition.log().endOffsetForEpoch(q.getLeaderEpoch())
                    .ifPresent(e -> r.setLeaderEpoch(e.epoch()).setEndOffset(e.endOffset()));
            }
            out.addPartitions(r);
        }
        responses.onNext(out.build());
        responses.onCompleted();
    }

    @Override
    public void describeLogs(DescribeLogsRequest request, StreamObserver<DescribeLogsResponse> responses) {
        io.raftline.protocol.Error denied = authorizer.checkCluster(Operation.DESCRIBE);
        if (denied != null) {
            refuse(DescribeLogsResponse.getDefaultInstance(), denied, responses);
            return;
        }
        DescribeLogsResponse.Builder out = DescribeLogsResponse.newBuilder();
        List<TopicPartition> wanted = new ArrayList<>();
        if (request.getPartitionsCount() == 0) {
            replicaManager.partitions().forEach(p -> wanted.add(p.topicPartition()));
        } else {
            request.getPartitionsList().forEach(p -> wanted.add(new TopicPartition(p.getTopic(), p.getPartition())));
        }
        for (TopicPartition tp : wanted) {
            DescribeLogsResponse.ReplicaLog.Builder r = DescribeLogsResponse.ReplicaLog.newBuilder()
                .setTopic(tp.topic()).setPartition(tp.partition());
            Partition partition = replicaManager.partition(tp).orElse(null);
            if (partition == null || partition.log() == null) {
                r.setError(error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "broker " + replicaManager.brokerId()
                    + " holds no replica of " + tp));
            } else {
                Log log = partition.log();
                r.setLogStartOffset(log.logStartOffset()).setLogEndOffset(log.logEndOffset())
                    .setHighWatermark(partition.highWatermark()).setSizeBytes(log.size()).setIsLeader(partition.isLeader());
                Path logDir = log.dir().toAbsolutePath().getParent();
                if (logDir != null) {
                    r.setLogDir(logDir.toString());
                }
            }
            out.addReplicas(r);
        }
        responses.onNext(out.build());
        responses.onCompleted();
    }

    @Override
    public void replicaChecksums(ReplicaChecksumsRequest request, StreamObserver<ReplicaChecksumsResponse> responses) {
        io.raftline.protocol.Error denied = authorizer.checkCluster(Operation.DESCRIBE);
        if (denied != null) {
            refuse(ReplicaChecksumsResponse.getDefaultInstance(), denied, responses);
            return;
        }
        ReplicaChecksumsResponse.Builder out = ReplicaChecksumsResponse.newBuilder();
        for (ReplicaChecksumsRequest.Range range : request.getPartitionsList()) {
            TopicPartition tp = new TopicPartition(range.getTopic(), range.getPartition());
            ReplicaChecksumsResponse.Checksum.Builder c = ReplicaChecksumsResponse.Checksum.newBuilder()
                .setTopic(tp.topic()).setPartition(tp.partition());
            Partition partition = replicaManager.partition(tp).orElse(null);
            Log log = partition == null ? null : partition.log();
            if (log == null) {
                c.setError(error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "broker " + replicaManager.brokerId()
                    + " holds no replica of " + tp));
            } else {
                long hw = partition.highWatermark();
                long to = range.getToOffset() < 0 ? hw : Math.min(range.getToOffset(), hw);
                try {
                    LogChecksum.Result r = LogChecksum.compute(log, range.getFromOffset(), to);
                    c.setFromOffset(r.from()).setToOffset(r.to()).setCrc32C(r.crc32c()).setBatches(r.batches())
                        .setLogStartOffset(log.logStartOffset()).setHighWatermark(hw);
                } catch (LogException e) {
                    c.setError(error(e.code(), e.getMessage()));
                }
            }
            out.addPartitions(c);
        }
        responses.onNext(out.build());
        responses.onCompleted();
    }

    static Optional<Endpoint> brokerEndpoint(BrokerRegistration broker) {
        return broker.endpoint("broker");
    }

    static ByteString bytes(byte[] b) {
        return ByteString.copyFrom(b);
    }
}
