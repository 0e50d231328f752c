package io.raftline.metadata.client;

import io.raftline.grpc.TransportSecurity;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.raftline.common.Time;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.AddVoterRequest;
import io.raftline.protocol.controller.AddVoterResponse;
import io.raftline.protocol.controller.AllocateProducerIdsRequest;
import io.raftline.protocol.controller.AllocateProducerIdsResponse;
import io.raftline.protocol.controller.AlterUserScramCredentialsRequest;
import io.raftline.protocol.controller.AlterUserScramCredentialsResponse;
import io.raftline.protocol.controller.CreateAclsRequest;
import io.raftline.protocol.controller.CreateAclsResponse;
import io.raftline.protocol.controller.DeleteAclsRequest;
import io.raftline.protocol.controller.DeleteAclsResponse;
import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.controller.AlterConfigsResponse;
import io.raftline.protocol.controller.AlterPartitionReassignmentsRequest;
import io.raftline.protocol.controller.AlterPartitionReassignmentsResponse;
import io.raftline.protocol.controller.AlterPartitionRequest;
import io.raftline.protocol.controller.AlterPartitionResponse;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import io.raftline.protocol.controller.BrokerHeartbeatResponse;
import io.raftline.protocol.controller.ControllerHint;
import io.raftline.protocol.controller.ControllerServiceGrpc;
import io.raftline.protocol.controller.CreatePartitionsRequest;
import io.raftline.protocol.controller.CreatePartitionsResponse;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.protocol.controller.DeleteTopicsRequest;
import io.raftline.protocol.controller.DeleteTopicsResponse;
import io.raftline.protocol.controller.DescribeQuorumRequest;
import io.raftline.protocol.controller.DescribeQuorumResponse;
import io.raftline.protocol.controller.ElectLeadersRequest;
import io.raftline.protocol.controller.ElectLeadersResponse;
import io.raftline.protocol.controller.ReadIndexRequest;
import io.raftline.protocol.controller.ReadIndexResponse;
import io.raftline.protocol.controller.RegisterBrokerRequest;
import io.raftline.protocol.controller.RegisterBrokerResponse;
import io.raftline.protocol.controller.RemoveVoterRequest;
import io.raftline.protocol.controller.RemoveVoterResponse;
import java.io.Closeable;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends ControllerService requests to the active controller. Starts with the quorum nodes it was given, follows
 * NOT_CONTROLLER hints, and moves on to the next node when one is unreachable, with a short backoff, until the
 * call's deadline. Completes with the controller's response (whatever its error code, other than NOT_CONTROLLER),
 * or exceptionally with a {@link TimeoutException} when no active controller answered in time.
 *
 * <p>A write whose answer was lost in transit may be retried and then answered with the error of a second attempt
 * (e.g. TOPIC_ALREADY_EXISTS): as in Kafka, callers of non-idempotent requests must allow for that.
 * Thread-safe.
 */
public final class ControllerChannel implements Closeable {

    /**
     * How long one attempt against one node may take. A busy controller may answer late but inside a call's
     * deadline, so an attempt is not cut shorter than the call; a silent node (a host cut off the network drops
     * packets, nothing refuses the connection) therefore costs one call, and the calls after it start elsewhere.
     */
    static final long ATTEMPT_TIMEOUT_MS = 5000;
    private static final long MAX_BACKOFF_MS = 50;
    private static final long RECENT_FAILURE_MS = 1000;

    private final List<InetSocketAddress> endpoints;
    private final Time time;
    private final long defaultTimeoutMs;
    private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
    private final ScheduledExecutorService retries;
    private volatile InetSocketAddress preferred;
    /** host:port -> monotonic ms of its last transport failure; such nodes are skipped for a moment. */
    private final Map<String, Long> failedAtMs = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private final LocalControllers localControllers;

    /** {@code defaultTimeoutMs}: the deadline of a call made without one (e.g. 30000 for admin paths). */
    private final TransportSecurity security;

    public ControllerChannel(List<InetSocketAddress> controllerEndpoints, Time time, long defaultTimeoutMs) {
        this(controllerEndpoints, time, defaultTimeoutMs, new LocalControllers());
    }

    /** As above; a controller listener {@code localControllers} knows is called in-process. */
    public ControllerChannel(List<InetSocketAddress> controllerEndpoints, Time time, long defaultTimeoutMs,
                             LocalControllers localControllers) {
        this(controllerEndpoints, time, defaultTimeoutMs, localControllers, TransportSecurity.plaintext());
    }

    /** As above; controllers reached over the network are reached as {@code security} says. */
    public ControllerChannel(List<InetSocketAddress> controllerEndpoints, Time time, long defaultTimeoutMs,
                             LocalControllers localControllers, TransportSecurity security) {
        this.security = security;
        this.localControllers = localControllers;
        if (controllerEndpoints.isEmpty()) {
            throw new IllegalArgumentException("no controller endpoints");
        }
        this.endpoints = List.copyOf(controllerEndpoints);
        this.time = time;
        this.defaultTimeoutMs = defaultTimeoutMs;
        this.preferred = endpoints.get(0);
        this.retries = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "controller-channel-retry");
            t.setDaemon(true);
            return t;
        });
    }

    public CompletableFuture<RegisterBrokerResponse> registerBroker(RegisterBrokerRequest r, long timeoutMs) {
        return call(ControllerServiceGrpc.getRegisterBrokerMethod(), r, timeoutMs);
    }

    public CompletableFuture<BrokerHeartbeatResponse> brokerHeartbeat(BrokerHeartbeatRequest r, long timeoutMs) {
        return call(ControllerServiceGrpc.getBrokerHeartbeatMethod(), r, timeoutMs);
    }

    public CompletableFuture<AlterPartitionResponse> alterPartition(AlterPartitionRequest r) {
        return call(ControllerServiceGrpc.getAlterPartitionMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<AllocateProducerIdsResponse> allocateProducerIds(AllocateProducerIdsRequest r) {
        return call(ControllerServiceGrpc.getAllocateProducerIdsMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<CreateTopicsResponse> createTopics(CreateTopicsRequest r) {
        return call(ControllerServiceGrpc.getCreateTopicsMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<DeleteTopicsResponse> deleteTopics(DeleteTopicsRequest r) {
        return call(ControllerServiceGrpc.getDeleteTopicsMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<CreatePartitionsResponse> createPartitions(CreatePartitionsRequest r) {
        return call(ControllerServiceGrpc.getCreatePartitionsMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<AlterConfigsResponse> alterConfigs(AlterConfigsRequest r) {
        return call(ControllerServiceGrpc.getAlterConfigsMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<CreateAclsResponse> createAcls(CreateAclsRequest r) {
        return call(ControllerServiceGrpc.getCreateAclsMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<DeleteAclsResponse> deleteAcls(DeleteAclsRequest r) {
        return call(ControllerServiceGrpc.getDeleteAclsMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<AlterUserScramCredentialsResponse> alterUserScramCredentials(
        AlterUserScramCredentialsRequest r) {
        return call(ControllerServiceGrpc.getAlterUserScramCredentialsMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<ElectLeadersResponse> electLeaders(ElectLeadersRequest r) {
        return call(ControllerServiceGrpc.getElectLeadersMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<AlterPartitionReassignmentsResponse> alterPartitionReassignments(
        AlterPartitionReassignmentsRequest r) {
        return call(ControllerServiceGrpc.getAlterPartitionReassignmentsMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<DescribeQuorumResponse> describeQuorum(DescribeQuorumRequest r) {
        return call(ControllerServiceGrpc.getDescribeQuorumMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<AddVoterResponse> addVoter(AddVoterRequest r) {
        return call(ControllerServiceGrpc.getAddVoterMethod(), r, defaultTimeoutMs);
    }

    public CompletableFuture<RemoveVoterResponse> removeVoter(RemoveVoterRequest r) {
        return call(ControllerServiceGrpc.getRemoveVoterMethod(), r, defaultTimeoutMs);
    }

    /**
     * A linearizable read point from any reachable quorum node (Ratis ReadIndex). Admin reads that must observe
     * writes made through other brokers wait until their {@link MetadataFollower} reaches it.
     */
    public CompletableFuture<ReadIndexResponse> readIndex() {
        return callAny(ControllerServiceGrpc.getReadIndexMethod(), ReadIndexRequest.getDefaultInstance(), defaultTimeoutMs);
    }

    /** Any ControllerService unary method, to the active controller, with retries until {@code timeoutMs}. */
    public <Q extends Message, R extends Message> CompletableFuture<R> call(MethodDescriptor<Q, R> method, Q request,
                                                                          long timeoutMs) {
        CompletableFuture<R> result = new CompletableFuture<>();
        attempt(method, request, time.hiResMilliseconds() + timeoutMs, attemptTimeout(timeoutMs), firstTarget(), 0, result,
            false, null);
        return result;
    }

    static long attemptTimeout(long callTimeoutMs) {
        return Math.min(ATTEMPT_TIMEOUT_MS, callTimeoutMs);
    }

    /** The node a call starts with: the last one that answered as controller, unless it has just failed. */
    private InetSocketAddress firstTarget() {
        InetSocketAddress p = preferred;
        return recentlyFailed(p) ? next(p) : p;
    }

    private <Q extends Message, R extends Message> CompletableFuture<R> callAny(MethodDescriptor<Q, R> method, Q request,
                                                                              long timeoutMs) {
        CompletableFuture<R> result = new CompletableFuture<>();
        attempt(method, request, time.hiResMilliseconds() + timeoutMs, attemptTimeout(timeoutMs), firstTarget(), 0, result,
            true, null);
        return result;
    }

    private <Q extends Message, R extends Message> void attempt(MethodDescriptor<Q, R> method, Q request, long deadlineMs,
                                                                long attemptTimeoutMs, InetSocketAddress target, int attempt,
                                                                CompletableFuture<R> result, boolean anyNode,
                                                                String lastFailure) {
        long remaining = deadlineMs - time.hiResMilliseconds();
        if (closed) {
            result.completeExceptionally(new IllegalStateException("controller channel closed"));
            return;
        }
        if (remaining <= 0) {
            result.completeExceptionally(new TimeoutException("no active controller answered " + method.getBareMethodName()
                + " in time" + (lastFailure == null ? "" : "; last failure: " + lastFailure)));
            return;
        }
        ManagedChannel channel = channel(target);
        CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(Math.min(remaining, attemptTimeoutMs), TimeUnit.MILLISECONDS);
        ClientCalls.asyncUnaryCall(channel.newCall(method, options), request, new StreamObserver<R>() {
            @Override
            public void onNext(R response) {
                Error error = errorOf(response);
                if (!anyNode && error != null && error.getCode() == ErrorCode.NOT_CONTROLLER) {
                    InetSocketAddress hinted = hintOf(response);
                    InetSocketAddress next = hinted != null && !sameAddress(hinted, target) && !recentlyFailed(hinted)
                        ? hinted : next(target);
                    retry(method, request, deadlineMs, attemptTimeoutMs, next, attempt + 1, result, anyNode,
                        "node " + target + " is not the controller");
                    return;
                }
                preferred = target;
                failedAtMs.remove(key(target));
                result.complete(response);
            }

            @Override
            public void onError(Throwable t) {
                Status.Code code = t instanceof StatusRuntimeException s ? s.getStatus().getCode() : Status.Code.UNKNOWN;
                if (code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED || code == Status.Code.CANCELLED
                    || code == Status.Code.UNKNOWN || code == Status.Code.ABORTED) {
                    failedAtMs.put(key(target), time.hiResMilliseconds());
                    if (sameAddress(preferred, target)) {
                        // Later calls should not start with a node that just failed to answer.
                        preferred = next(target);
                    }
                    retry(method, request, deadlineMs, attemptTimeoutMs, next(target), attempt + 1, result, anyNode,
                        target + ": " + t);
                } else {
                    result.completeExceptionally(t);
                }
            }

            @Override
            public void onCompleted() {
                // The unary answer came in onNext.
            }
        });
    }

    private <Q extends Message, R extends Message> void retry(MethodDescriptor<Q, R> method, Q request, long deadlineMs,
                                                              long attemptTimeoutMs, InetSocketAddress next, int attempt,
                                                              CompletableFuture<R> result, boolean anyNode, String why) {
        // The first retry goes at once; later ones back off a little, so an election in progress is not hammered
        // but a new controller is found within a few tens of milliseconds of becoming ready.
        long backoff = attempt <= 1 ? 0 : Math.min(MAX_BACKOFF_MS, 5L * attempt);
        try {
            retries.schedule(() -> attempt(method, request, deadlineMs, attemptTimeoutMs, next, attempt, result, anyNode, why),
                backoff, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException("controller channel closed"));
        }
    }

    /** The next endpoint after {@code current}, skipping those that failed in the last second if possible. */
    private InetSocketAddress next(InetSocketAddress current) {
        int i = endpoints.indexOf(current);
        for (int k = 1; k <= endpoints.size(); k++) {
            InetSocketAddress candidate = endpoints.get(Math.floorMod(i + k, endpoints.size()));
            if (!recentlyFailed(candidate)) {
                return candidate;
            }
        }
        return endpoints.get(Math.floorMod(i + 1, endpoints.size()));
    }

    private boolean recentlyFailed(InetSocketAddress a) {
        Long at = failedAtMs.get(key(a));
        return at != null && time.hiResMilliseconds() - at < RECENT_FAILURE_MS;
    }

    private static String key(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }

    private static boolean sameAddress(InetSocketAddress a, InetSocketAddress b) {
        return a.getPort() == b.getPort() && a.getHostString().equals(b.getHostString());
    }

    private ManagedChannel channel(InetSocketAddress target) {
        // A controller in this JVM (a combined node's own) is called in-process; a cached network channel to it stays
        // in use until this channel closes, and a closed local controller is reached over the network.
        return channels.computeIfAbsent(key(target), k -> {
            ManagedChannel local = localControllers.channelIfLocal(target, null, 64 << 20);
            return local != null ? local : security.secure(NettyChannelBuilder.forAddress(target.getHostString(), target.getPort()))
                .maxInboundMessageSize(64 << 20).build();
        });
    }

    static Error errorOf(Message response) {
        FieldDescriptor f = response.getDescriptorForType().findFieldByName("error");
        return f == null || !response.hasField(f) ? null : (Error) response.getField(f);
    }

    static InetSocketAddress hintOf(Message response) {
        FieldDescriptor f = response.getDescriptorForType().findFieldByName("controller");
        if (f == null || !response.hasField(f)) {
            return null;
        }
        ControllerHint h = (ControllerHint) response.getField(f);
        if (!h.hasControllerEndpoint() || h.getControllerEndpoint().getPort() <= 0) {
            return null;
        }
        return InetSocketAddress.createUnresolved(h.getControllerEndpoint().getHost(), h.getControllerEndpoint().getPort());
    }

    /** The quorum nodes this channel was given. */
    public List<InetSocketAddress> endpoints() {
        return new ArrayList<>(endpoints);
    }

    @Override
    public void close() {
        closed = true;
        retries.shutdownNow();
        channels.values().forEach(ManagedChannel::shutdownNow);
        channels.clear();
    }
}
