package io.raftline.metadata.quorum;

import io.grpc.Server;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.raftline.metadata.client.LocalControllers;
import io.raftline.metadata.controller.Controller;
import io.raftline.metadata.controller.ControllerResult;
import io.raftline.metadata.controller.Errors;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.HostPort;
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
import io.raftline.protocol.controller.FetchMetadataRequest;
import io.raftline.protocol.controller.FetchMetadataResponse;
import io.raftline.protocol.controller.ReadIndexRequest;
import io.raftline.protocol.controller.ReadIndexResponse;
import io.raftline.protocol.controller.RegisterBrokerRequest;
import io.raftline.protocol.controller.RegisterBrokerResponse;
import io.raftline.protocol.controller.RemoveVoterRequest;
import io.raftline.protocol.controller.RemoveVoterResponse;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.TreeMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC ControllerService on controller.listener. On the active controller, writes run through
 * {@link ActiveController} and are answered after their records commit; elsewhere they are answered
 * NOT_CONTROLLER with a hint naming the controller this node knows. FetchMetadata and ReadIndex are served by
 * every quorum node. No blocking work on gRPC's threads: decisions run on the controller thread, membership
 * changes on a separate admin thread.
 *
 * <p>Read consistency, path by path: controller decisions read the image on the active controller after its own
 * controller-change record was applied, so they see every committed write (no ReadIndex needed: all writes go
 * through this node). ReadIndex is the one linearizable read (Ratis ReadIndex, any node): admin reads that must
 * observe earlier writes made through another broker (describe after create) take its index and wait until their
 * broker's image reaches it. FetchMetadata serves this node's committed, applied entries: plain reads, possibly a
 * little behind the leader, which brokers tolerate because every entry carries its index. DescribeQuorum reads
 * Ratis's own leader state (answered only by the leader, which alone knows its followers' progress).
 */
public final class ControllerServer implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(ControllerServer.class);

    private final QuorumServer quorum;
    private final MetadataStateMachine stateMachine;
    private final ActiveController active;
    private final MetadataStreams streams;
    private final ExecutorService admin;
    private final Server server;
    private final String host;
    /** The same service in-process, for this JVM's broker (see {@link LocalControllers}); created once bound. */
    private volatile Server inProcess;
    private volatile String advertisedHost;
    private final LocalControllers localControllers;
    /** The connections brokers heartbeat over: a closed one fences its broker sooner than its session would. */
    private final HeartbeatConnections heartbeatConnections;

    ControllerServer(String host, int port, QuorumServer quorum, MetadataStateMachine stateMachine, ActiveController active,
                     MetadataStreams streams, int nodeId, LocalControllers localControllers, QuorumSecurity security) {
        this.localControllers = localControllers;
        this.quorum = quorum;
        this.stateMachine = stateMachine;
        this.active = active;
        this.streams = streams;
        this.admin = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "quorum-admin-" + nodeId);
            t.setDaemon(true);
            return t;
        });
        this.host = host;
        this.heartbeatConnections = new HeartbeatConnections((brokerId, brokerEpoch) -> {
            if (active.isActive()) {
                active.controller().heartbeatConnectionClosed(brokerId, brokerEpoch);
            }
        });
        // Only brokers and voters call this service: under mTLS, other principals are refused before reaching it.
        // (This JVM's own broker calls the in-process copy below, which no network peer can reach.)
        this.server = security.controller().secure(NettyServerBuilder.forAddress(new InetSocketAddress(host, port)))
            .addService(io.grpc.ServerInterceptors.intercept(
                security.controller().intercept(new Service().bindService(), security.nodePrincipals(), true),
                heartbeatConnections.interceptor()))
            .addTransportFilter(heartbeatConnections.filter())
            .maxInboundMessageSize(64 << 20).build();
    }

    void start() throws IOException {
        server.start();
        inProcess = InProcessServerBuilder.forName(LocalControllers.serverName(host, server.getPort())).addService(new Service())
            .maxInboundMessageSize(64 << 20).build().start();
        localControllers.register(host, server.getPort(), LocalControllers.serverName(host, server.getPort()));
    }

    public int port() {
        return server.getPort();
    }

    /** Set once bound: this node's own controller.listener, hinted while it is the Ratis leader but not yet active. */
    private volatile ControllerHint selfHint;

    void setSelfEndpoint(int nodeId, String host, int port) {
        if (!host.equals(this.host) && inProcess != null) {
            // Peers and brokers name this listener by its advertised host: make that name local too.
            localControllers.register(host, port, LocalControllers.serverName(this.host, server.getPort()));
            advertisedHost = host;
        }
        selfHint = ControllerHint.newBuilder().setControllerId(nodeId)
            .setControllerEndpoint(HostPort.newBuilder().setHost(host).setPort(port)).build();
    }

    ControllerHint hint() {
        MetadataImage image = stateMachine.image();
        try {
            if (selfHint != null && quorum.info().isLeader()) {
                // Elected but not ready yet: the controller will be this node in a moment, so ask here again.
                return selfHint;
            }
        } catch (RuntimeException e) {
            // Ratis not started yet: fall back to the metadata.
        }
        ControllerHint.Builder h = ControllerHint.newBuilder().setControllerId(image.controllerId());
        if (image.controllerEndpoint().getPort() > 0) {
            h.setControllerEndpoint(HostPort.newBuilder().setHost(image.controllerEndpoint().getHost())
                .setPort(image.controllerEndpoint().getPort()));
        }
        return h.build();
    }

    static Error errorOf(Throwable t) {
        Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        if (cause instanceof NotControllerException) {
            return Errors.of(ErrorCode.NOT_CONTROLLER, cause.getMessage());
        }
        if (cause instanceof RequestTooLargeException) {
            return Errors.of(ErrorCode.INVALID_REQUEST, cause.getMessage());
        }
        LOG.error("controller request failed", cause);
        return Errors.of(ErrorCode.UNKNOWN, String.valueOf(cause));
    }

    /**
     * Runs a decision on the active controller and answers: {@code finish} stamps the hint and the entry index on
     * the decided response; {@code failure} builds the response for an error.
     */
    private <T> void decide(StreamObserver<T> obs, Function<Controller, Function<MetadataImage, ControllerResult<T>>> decision,
                            BiFunction<T, Long, T> finish, Function<Error, T> failure) {
        decide(obs, false, decision, finish, failure);
    }

    /** As above; {@code exclusive}: decided alone on the committed image (see {@link WritePipeline}). */
    private <T> void decide(StreamObserver<T> obs, boolean exclusive,
                            Function<Controller, Function<MetadataImage, ControllerResult<T>>> decision,
                            BiFunction<T, Long, T> finish, Function<Error, T> failure) {
        active.submit(decision.apply(active.controller()), exclusive).whenComplete((c, err) -> {
            T resp = err == null ? finish.apply(c.response(), c.index()) : failure.apply(errorOf(err));
            obs.onNext(resp);
            obs.onCompleted();
        });
    }

    private final class Service extends ControllerServiceGrpc.ControllerServiceImplBase {

        @Override
        public void registerBroker(RegisterBrokerRequest req, StreamObserver<RegisterBrokerResponse> obs) {
            // Exclusive: the broker epoch is the index of the registration's entry.
            decide(obs, true, c -> image -> c.registerBroker(image, req),
                (r, i) -> r.toBuilder().setController(hint()).setMetadataIndex(i).build(),
                e -> RegisterBrokerResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void brokerHeartbeat(BrokerHeartbeatRequest req, StreamObserver<BrokerHeartbeatResponse> obs) {
            if (active.isActive()) {
                active.controller().heartbeatArrived(req.getBrokerId(), req.getBrokerEpoch());
            }
            heartbeatConnections.heartbeat(req.getBrokerId(), req.getBrokerEpoch());
            // A stopping broker's handshake names an index it must reach: decided on the committed image.
            decide(obs, req.getWantShutdown(), c -> image -> c.brokerHeartbeat(image, req),
                (r, i) -> r.toBuilder().setController(hint()).build(),
                e -> BrokerHeartbeatResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void alterPartition(AlterPartitionRequest req, StreamObserver<AlterPartitionResponse> obs) {
            decide(obs, c -> image -> c.alterPartition(image, req),
                (r, i) -> r.toBuilder().setController(hint()).setMetadataIndex(i).build(),
                e -> AlterPartitionResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void allocateProducerIds(AllocateProducerIdsRequest req, StreamObserver<AllocateProducerIdsResponse> obs) {
            decide(obs, c -> image -> c.allocateProducerIds(image, req),
                (r, i) -> r.toBuilder().setController(hint()).setMetadataIndex(i).build(),
                e -> AllocateProducerIdsResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void createTopics(CreateTopicsRequest req, StreamObserver<CreateTopicsResponse> obs) {
            decide(obs, c -> image -> c.createTopics(image, req),
                (r, i) -> r.toBuilder().setController(hint()).setMetadataIndex(i).build(),
                e -> CreateTopicsResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void deleteTopics(DeleteTopicsRequest req, StreamObserver<DeleteTopicsResponse> obs) {
            decide(obs, c -> image -> c.deleteTopics(image, req),
                (r, i) -> r.toBuilder().setController(hint()).setMetadataIndex(i).build(),
                e -> DeleteTopicsResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void createPartitions(CreatePartitionsRequest req, StreamObserver<CreatePartitionsResponse> obs) {
            decide(obs, c -> image -> c.createPartitions(image, req),
                (r, i) -> r.toBuilder().setController(hint()).setMetadataIndex(i).build(),
                e -> CreatePartitionsResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void alterConfigs(AlterConfigsRequest req, StreamObserver<AlterConfigsResponse> obs) {
            decide(obs, c -> image -> c.alterConfigs(image, req),
                (r, i) -> r.toBuilder().setController(hint()).setMetadataIndex(i).build(),
                e -> AlterConfigsResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void createAcls(CreateAclsRequest req, StreamObserver<CreateAclsResponse> obs) {
            decide(obs, c -> image -> c.createAcls(image, req),
                (r, i) -> r.toBuilder().setController(hint()).setMetadataIndex(i).build(),
                e -> CreateAclsResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void deleteAcls(DeleteAclsRequest req, StreamObserver<DeleteAclsResponse> obs) {
            decide(obs, c -> image -> c.deleteAcls(image, req),
                (r, i) -> r.toBuilder().setController(hint()).setMetadataIndex(i).build(),
                e -> DeleteAclsResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void alterUserScramCredentials(AlterUserScramCredentialsRequest req,
                                              StreamObserver<AlterUserScramCredentialsResponse> obs) {
            decide(obs, c -> image -> c.alterUserScramCredentials(image, req),
                (r, i) -> r.toBuilder().setController(hint()).setMetadataIndex(i).build(),
                e -> AlterUserScramCredentialsResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void electLeaders(ElectLeadersRequest req, StreamObserver<ElectLeadersResponse> obs) {
            decide(obs, c -> image -> c.electLeaders(image, req),
                (r, i) -> r.toBuilder().setController(hint()).setMetadataIndex(i).build(),
                e -> ElectLeadersResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void alterPartitionReassignments(AlterPartitionReassignmentsRequest req,
                                                StreamObserver<AlterPartitionReassignmentsResponse> obs) {
            decide(obs, c -> image -> c.alterPartitionReassignments(image, req),
                (r, i) -> r.toBuilder().setController(hint()).setMetadataIndex(i).build(),
                e -> AlterPartitionReassignmentsResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void describeQuorum(DescribeQuorumRequest req, StreamObserver<DescribeQuorumResponse> obs) {
            DescribeQuorumResponse resp;
            try {
                resp = describe();
            } catch (RuntimeException e) {
                resp = DescribeQuorumResponse.newBuilder().setError(errorOf(e)).setController(hint()).build();
            }
            obs.onNext(resp);
            obs.onCompleted();
        }

        @Override
        public void addVoter(AddVoterRequest req, StreamObserver<AddVoterResponse> obs) {
            membership(obs, () -> {
                InetSocketAddress addr = parseHostPort(req.getEndpoint());
                RaftPeer peer = QuorumServer.peer(req.getId(), addr);
                QuorumMembership.Change change = QuorumMembership.add(quorum.voters(), quorum.listeners(), peer,
                    req.getAsListener());
                quorum.setConfiguration(change.voters(), change.listeners());
            }, e -> AddVoterResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void removeVoter(RemoveVoterRequest req, StreamObserver<RemoveVoterResponse> obs) {
            membership(obs, () -> {
                QuorumMembership.Change change = QuorumMembership.remove(quorum.voters(), quorum.listeners(), req.getId());
                quorum.setConfiguration(change.voters(), change.listeners());
            }, e -> RemoveVoterResponse.newBuilder().setError(e).setController(hint()).build());
        }

        @Override
        public void fetchMetadata(FetchMetadataRequest req, StreamObserver<FetchMetadataResponse> obs) {
            streams.open(req, obs);
        }

        @Override
        public void readIndex(ReadIndexRequest req, StreamObserver<ReadIndexResponse> obs) {
            quorum.readIndex().whenComplete((index, err) -> {
                obs.onNext(err == null ? ReadIndexResponse.newBuilder().setError(Errors.NONE).setIndex(index).build()
                    : ReadIndexResponse.newBuilder().setError(Errors.of(ErrorCode.REQUEST_TIMED_OUT,
                        "no linearizable read point: " + err)).build());
                obs.onCompleted();
            });
        }
    }

    private interface MembershipChange {
        void run() throws IOException;
    }

    /** Membership changes run on the admin thread, only on the active controller (the Ratis leader). */
    private <T> void membership(StreamObserver<T> obs, MembershipChange change, Function<Error, T> respond) {
        if (!active.isActive()) {
            obs.onNext(respond.apply(Errors.of(ErrorCode.NOT_CONTROLLER, "not the active controller")));
            obs.onCompleted();
            return;
        }
        admin.execute(() -> {
            Error e;
            try {
                change.run();
                e = Errors.NONE;
            } catch (IllegalArgumentException ex) {
                e = Errors.of(ErrorCode.INVALID_REQUEST, ex.getMessage());
            } catch (IOException | RuntimeException ex) {
                LOG.warn("membership change failed", ex);
                e = Errors.of(ErrorCode.REQUEST_TIMED_OUT, "membership change failed: " + ex.getMessage());
            }
            obs.onNext(respond.apply(e));
            obs.onCompleted();
        });
    }

    static InetSocketAddress parseHostPort(String s) {
        int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
            throw new IllegalArgumentException("endpoint must be host:port, got '" + s + "'");
        }
        try {
            return InetSocketAddress.createUnresolved(s.substring(0, colon), Integer.parseInt(s.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("endpoint must be host:port, got '" + s + "'");
        }
    }

    /** Quorum state as the leader sees it; elsewhere NOT_CONTROLLER (only the leader knows followers' progress). */
    private DescribeQuorumResponse describe() {
        MetadataImage image = stateMachine.image();
        if (!active.isActive()) {
            return DescribeQuorumResponse.newBuilder().setError(Errors.of(ErrorCode.NOT_CONTROLLER,
                "not the active controller")).setController(hint()).setLeaderId(quorum.leaderId()).build();
        }
        DescribeQuorumResponse.Builder b = DescribeQuorumResponse.newBuilder().setError(Errors.NONE).setController(hint())
            .setLeaderId(quorum.leaderId()).setTerm(quorum.term()).setControllerEpoch(image.controllerEpoch())
            .setCommitIndex(quorum.commitIndex());
        long last = quorum.lastLogIndex();
        RoleInfoProto role = quorum.info().getRoleInfoProto();
        long[] matches = quorum.info().getFollowerMatchIndices();
        List<ServerRpcProto> followers = role.hasLeaderInfo() ? role.getLeaderInfo().getFollowerInfoList() : List.of();
        for (RaftPeer p : quorum.voters()) {
            b.addVoters(peerOf(p, last, followers, matches));
        }
        for (RaftPeer p : quorum.listeners()) {
            b.addListeners(peerOf(p, last, followers, matches));
        }
        return b.build();
    }

    /** On the active controller: each voter's progress as {@code describe} reports it; empty on any other node. */
    public Map<Integer, DescribeQuorumResponse.Peer> voterProgress() {
        Map<Integer, DescribeQuorumResponse.Peer> out = new TreeMap<>();
        if (!active.isActive()) {
            return out;
        }
        for (DescribeQuorumResponse.Peer p : describe().getVotersList()) {
            out.put(p.getId(), p);
        }
        return out;
    }

    private DescribeQuorumResponse.Peer peerOf(RaftPeer p, long lastIndex, List<ServerRpcProto> followers, long[] matches) {
        DescribeQuorumResponse.Peer.Builder b = DescribeQuorumResponse.Peer.newBuilder()
            .setId(QuorumServer.nodeIdOf(p.getId())).setEndpoint(p.getAddress()).setLagEntries(0).setLastContactMs(0);
        if (QuorumServer.nodeIdOf(p.getId()) == QuorumServer.nodeIdOf(quorum.division().getId())) {
            return b.build();
        }
        b.setLastContactMs(-1).setLagEntries(lastIndex);
        // Ratis lists follower infos and match indexes from the same appenders, in the same order.
        for (int i = 0; i < followers.size(); i++) {
            if (followers.get(i).getId().getId().toStringUtf8().equals(p.getId().toString())) {
                b.setLastContactMs(followers.get(i).getLastRpcElapsedTimeMs());
                if (i < matches.length) {
                    b.setLagEntries(Math.max(0, lastIndex - matches[i]));
                }
            }
        }
        return b.build();
    }

    @Override
    public void close() {
        localControllers.unregister(host, server.getPort());
        if (advertisedHost != null) {
            localControllers.unregister(advertisedHost, server.getPort());
        }
        if (inProcess != null) {
            inProcess.shutdownNow();
        }
        server.shutdownNow();
        admin.shutdownNow();
        try {
            server.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
