package io.raftline.metadata.quorum;

import io.raftline.common.SystemTime;
import io.raftline.common.io.PortProbe;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.metadata.MetadataBatch;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.VoterDirectoryRecord;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.proto.RaftProtos.LogInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis server of one quorum node: storage under {@code <metadata.dir>/ratis}, formatted on first start
 * (the voters from {@code quorum.voters} seed the group) and recovered afterwards (the membership in the Raft log
 * and Ratis's stored configuration win). The Raft group id is derived from the cluster id, so every node of a
 * cluster agrees on it without talking, and a node never joins another cluster's group.
 *
 * <p>Thread-safe: Ratis is; this class only holds immutable references after {@link #start}.
 */
public final class QuorumServer implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(QuorumServer.class);

    private final QuorumConfig config;
    private final MetadataStateMachine stateMachine;
    private final RaftGroupId groupId;
    private final QuorumRpc.Hooks rpcHooks;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private volatile LongConsumer commitLatencyNanos = nanos -> { };
    private RaftProperties properties;
    private Parameters parameters;
    private RaftServer server;
    private RaftServer.Division division;

    public QuorumServer(QuorumConfig config, MetadataStateMachine stateMachine) {
        this(config, stateMachine, new QuorumRpc.Hooks());
    }

    QuorumServer(QuorumConfig config, MetadataStateMachine stateMachine, QuorumRpc.Hooks rpcHooks) {
        this.config = config;
        this.stateMachine = stateMachine;
        this.groupId = groupIdOf(config.clusterId());
        this.rpcHooks = rpcHooks;
    }

    /** What this server's log appenders report. */
    public QuorumRpc.Hooks rpcHooks() {
        return rpcHooks;
    }

    /** The Raft group id every node of the cluster derives from the cluster id. */
    public static RaftGroupId groupIdOf(String clusterId) {
        return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("raftline-metadata:" + clusterId).getBytes(StandardCharsets.UTF_8)));
    }

    public static RaftPeerId peerId(int nodeId) {
        return RaftPeerId.valueOf(Integer.toString(nodeId));
    }

    public static RaftPeer peer(int nodeId, InetSocketAddress address) {
        return RaftPeer.newBuilder().setId(peerId(nodeId)).setAddress(address.getHostString() + ":" + address.getPort())
            .build();
    }

    public static int nodeIdOf(RaftPeerId id) {
        return Integer.parseInt(id.toString());
    }

    public synchronized void start() throws IOException {
        refuseTakenListener();
        Path dir = config.metadataDir().resolve("ratis");
        Files.createDirectories(dir);
        boolean empty;
        try (Stream<Path> s = Files.list(dir)) {
            empty = s.findAny().isEmpty();
        }
        properties = ratisProperties(config, dir);
        parameters = rpcHooks.parameters();
        QuorumSecurity security = config.security();
        if (security.quorumTls() != null) {
            // Ratis's shaded Netty takes the JDK managers as they are, so its links reload certificates as ours do.
            GrpcConfigKeys.TLS.setConf(parameters, new GrpcTlsConfig(security.quorumTls().keyManager(),
                security.quorumTls().trustManager(), security.quorumMutual()));
        }
        boolean asListener = !config.voters().containsKey(config.nodeId());
        if (empty && !asListener) {
            EmptyStorageDecision.Decision decision = decideEmptyStorage();
            LOG.info("the Raft storage under {} is empty: {}", dir, decision.reason());
            switch (decision.action()) {
                case REFUSE -> throw new QuorumStorageException(decision.reason());
                case JOIN_AS_LISTENER -> asListener = true;
                default -> { }
            }
        }
        List<RaftPeer> peers = new ArrayList<>();
        boolean listener = asListener;
        config.voters().forEach((id, addr) -> {
            if (!(listener && id == config.nodeId())) {
                peers.add(peer(id, addr));
            }
        });
        if (asListener) {
            // A node joining an existing quorum (add-voter), or one that lost its log and was demoted: Ratis needs it
            // in its own group, so it starts as a non-voting listener that waits for the leader; it never campaigns.
            peers.add(RaftPeer.newBuilder().setId(peerId(config.nodeId()))
                .setAddress(config.quorumHost() + ":" + config.quorumPort()).setStartupRole(RaftPeerRole.LISTENER).build());
        }
        RaftGroup group = RaftGroup.valueOf(groupId, peers);
        server = RaftServer.newBuilder()
            .setServerId(peerId(config.nodeId()))
            .setGroup(group)
            .setProperties(properties)
            .setParameters(parameters)
            .setStateMachine(stateMachine)
            .setOption(empty ? RaftStorage.StartupOption.FORMAT : RaftStorage.StartupOption.RECOVER)
            .build();
        server.start();
        division = server.getDivision(groupId);
        registerDirectoryWhenCaughtUp();
    }

    /**
     * Ratis's gRPC server, when it cannot listen, ends the JVM (System.exit(1) after its own log line); a taken
     * quorum.listener is refused here first, before any storage is touched, with the error the other listeners give.
     */
    private void refuseTakenListener() {
        try {
            PortProbe.bindAndRelease(new InetSocketAddress(config.quorumHost(), config.quorumPort()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on quorum.listener " + config.quorumHost() + ":"
                + config.quorumPort() + ": " + e.getMessage(), e);
        }
    }

    /** A quorum node that must not start: it lost its Raft log while the quorum counts it as a voter. */
    public static final class QuorumStorageException extends IllegalStateException {
        QuorumStorageException(String message) {
            super(message);
        }
    }

    /**
     * Asks the other voters of {@code quorum.voters} (their Raft servers, which answer without a leader) whether the
     * quorum has run, and if so asks the quorum itself (a linearizable read, which needs a leader: asked until one
     * answers) what this node is in its current configuration and which directory id it holds for it.
     */
    private EmptyStorageDecision.Decision decideEmptyStorage() throws IOException {
        List<RaftPeer> others = new ArrayList<>();
        config.voters().forEach((id, addr) -> {
            if (id != config.nodeId()) {
                others.add(peer(id, addr));
            }
        });
        List<EmptyStorageDecision.PeerView> views = new ArrayList<>();
        if (others.isEmpty()) {
            // A quorum of one: nobody else to ask (and Ratis builds no client for an empty group).
            return EmptyStorageDecision.decide(config.nodeId(), views, Optional.empty());
        }
        RaftProperties quick = new RaftProperties(properties);
        RaftClientConfigKeys.Rpc.setRequestTimeout(quick, TimeDuration.valueOf(1, TimeUnit.SECONDS));
        try (RaftClient client = RaftClient.newBuilder().setClientId(ClientId.randomId())
            .setRaftGroup(RaftGroup.valueOf(groupId, others)).setProperties(quick).setParameters(parameters)
            .setRetryPolicy(RetryPolicies.noRetry())
            .build()) {
            for (RaftPeer p : others) {
                views.add(view(client, p));
            }
        }
        EmptyStorageDecision.Decision d = EmptyStorageDecision.decide(config.nodeId(), views, Optional.empty());
        if (d.action() != EmptyStorageDecision.Action.ASK_QUORUM) {
            return d;
        }
        long deadline = SystemTime.INSTANCE.hiResMilliseconds() + 4 * config.requestTimeoutMs() + 30_000;
        IOException last = null;
        try (RaftClient client = RaftClient.newBuilder().setClientId(ClientId.randomId())
            .setRaftGroup(RaftGroup.valueOf(groupId, others)).setProperties(properties).setParameters(parameters)
            .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(3, TimeDuration.valueOf(500, TimeUnit.MILLISECONDS)))
            .build()) {
            while (SystemTime.INSTANCE.hiResMilliseconds() < deadline) {
                try {
                    RaftClientReply reply = client.io().sendReadOnly(
                        Message.valueOf(MetadataStateMachine.VOTER_DIRECTORY_QUERY + config.nodeId()));
                    if (reply.isSuccess()) {
                        return EmptyStorageDecision.decide(config.nodeId(), views,
                            Optional.of(MetadataStateMachine.parseVoterAnswer(reply.getMessage().getContent().toStringUtf8())));
                    }
                    last = reply.getException();
                } catch (IOException e) {
                    last = e;
                }
            }
        }
        throw new IOException("the quorum has run before node " + config.nodeId() + " started with an empty log, but no"
            + " leader answered whether it is a voter that lost its log ("
            + (last == null ? "no answer" : last.getMessage()) + "); start it again once the quorum has a leader", last);
    }

    private EmptyStorageDecision.PeerView view(RaftClient client, RaftPeer p) {
        int id = nodeIdOf(p.getId());
        try {
            GroupInfoReply info = client.getGroupManagementApi(p.getId()).info(groupId);
            LogInfoProto log = info.getLogInfoProto();
            // Any entry of a term counts: a voter that has just restarted knows its commit index only once a leader
            // tells it, but its log shows the quorum ran.
            boolean hasLog = log != null && ((log.hasLastEntry() && log.getLastEntry().getTerm() > 0)
                || (log.hasCommitted() && log.getCommitted().getTerm() > 0) || log.hasLastSnapshot());
            return new EmptyStorageDecision.PeerView(id, true, hasLog);
        } catch (GroupMismatchException e) {
            return new EmptyStorageDecision.PeerView(id, true, false);
        } catch (IOException | RuntimeException e) {
            return EmptyStorageDecision.PeerView.unreachable(id);
        }
    }

    /**
     * Once this node has caught up (a linearizable read point applied), records the directory id it runs with in
     * the quorum if the quorum holds another or none, so that a later start with an empty log is recognised.
     * Through the leader, as any client write; retried until it lands or the server closes.
     */
    private void registerDirectoryWhenCaughtUp() {
        String dir = config.directoryId();
        if (dir.isEmpty()) {
            return;
        }
        Thread t = new Thread(() -> {
            while (server != null) {
                try {
                    readIndex().get(config.requestTimeoutMs() * 2, TimeUnit.MILLISECONDS);
                    if (dir.equals(stateMachine.image().voterDirectories().get(config.nodeId()))) {
                        return;
                    }
                    byte[] batch = MetadataBatch.newBuilder().addRecords(MetadataImage.wrap(MetadataRecord.newBuilder()
                        .setVoterDirectory(VoterDirectoryRecord.newBuilder().setNodeId(config.nodeId()).setDirectoryId(dir))))
                        .build().toByteArray();
                    try (RaftClient client = RaftClient.newBuilder().setClientId(ClientId.randomId())
                        .setRaftGroup(division.getGroup()).setProperties(properties).setParameters(parameters)
                        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(5,
                            TimeDuration.valueOf(200, TimeUnit.MILLISECONDS))).build()) {
                        if (client.io().send(Message.valueOf(ByteString.copyFrom(batch))).isSuccess()) {
                            LOG.info("registered metadata directory {} of node {} in the quorum", dir, config.nodeId());
                            return;
                        }
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    LOG.debug("registering the metadata directory failed; trying again", e);
                }
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "quorum-register-directory");
        t.setDaemon(true);
        t.start();
    }

    static RaftProperties ratisProperties(QuorumConfig config, Path dir) {
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(p, List.of(dir.toFile()));
        // Ratis's gRPC transport with its 3.2.2 log-appender race closed (QuorumRpc says which).
        RaftConfigKeys.Rpc.setType(p, new QuorumRpc.Type());
        GrpcConfigKeys.Server.setHost(p, config.quorumHost());
        GrpcConfigKeys.Server.setPort(p, config.quorumPort());
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(config.electionTimeoutMinMs(), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(config.electionTimeoutMaxMs(), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p,
            TimeDuration.valueOf(config.firstElectionTimeoutMinMs(), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p,
            TimeDuration.valueOf(config.firstElectionTimeoutMaxMs(), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(config.requestTimeoutMs(), TimeUnit.MILLISECONDS));
        // Linearizable reads go through ReadIndex; no leader lease (it trusts clocks, which a paused JVM breaks).
        RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, false);
        RaftServerConfigKeys.Read.setTimeout(p, TimeDuration.valueOf(config.requestTimeoutMs(), TimeUnit.MILLISECONDS));
        // Send appends as soon as they exist: metadata writes are small and latency matters more than batching.
        RaftServerConfigKeys.Log.Appender.setWaitTimeMin(p, TimeDuration.valueOf(0, TimeUnit.MILLISECONDS));
        // A follower appends the leader's entries one request after another (Ratis's default). Off, 3.2.2 runs them
        // concurrently on its server pool, where its log refuses a second caller ("Already running a method"): each
        // refusal fails the request, the leader resets the stream and resends, and a burst of writes turns into
        // hundreds of INCONSISTENCY replies (and the appender race QuorumRpc closes).
        RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, true);
        // No commit-index ("log metadata") entries: Ratis otherwise appends one after every commit, so each write costs
        // a second entry, a second replication round and a second fsync on every node, and the next write queues
        // behind that flush. What it bought: a restarted node could apply up to its last committed index before
        // hearing from a leader; without it a node applies its log once a leader tells it the commit index, which a
        // broker waits for anyway (it serves metadata only after catching up with the quorum's commit index).
        RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf("32MB"));
        RaftServerConfigKeys.Log.setPreallocatedSize(p, SizeInBytes.valueOf("4MB"));
        // Snapshots: Ratis's auto-trigger is off by default; turn it on with our threshold, keep two, purge the log.
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, config.snapshotRecords());
        RaftServerConfigKeys.Snapshot.setCreationGap(p, Math.min(1024, config.snapshotRecords()));
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
        RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.max(1, Math.min(Integer.MAX_VALUE, config.snapshotRecords() / 2)));
        RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, true);
        return p;
    }

    public RaftGroupId groupId() {
        return groupId;
    }

    public DivisionInfo info() {
        return division.getInfo();
    }

    public RaftServer.Division division() {
        return division;
    }

    /** Leader with its first entry of the term committed and applied: allowed to act as the controller. */
    public boolean isLeaderReady() {
        DivisionInfo info = division.getInfo();
        return info.isLeader() && info.isLeaderReady();
    }

    /** The current leader's node id, or -1 when none is known. */
    public int leaderId() {
        RaftPeerId id = division.getInfo().getLeaderId();
        return id == null ? -1 : nodeIdOf(id);
    }

    public long term() {
        return division.getInfo().getCurrentTerm();
    }

    public long commitIndex() {
        return division.getRaftLog().getLastCommittedIndex();
    }

    public long lastLogIndex() {
        return division.getRaftLog().getLastEntryTermIndex() == null ? 0
            : division.getRaftLog().getLastEntryTermIndex().getIndex();
    }

    /** The voters and listeners of the current Raft configuration (from the log, not from quorum.voters). */
    public Collection<RaftPeer> voters() {
        return division.getRaftConf().getCurrentPeers(RaftPeerRole.FOLLOWER);
    }

    public Collection<RaftPeer> listeners() {
        return division.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER);
    }

    /**
     * Appends one entry through this node (which must be the leader) and completes with its Raft index once it is
     * committed and applied here; fails (e.g. NotLeaderException) otherwise.
     */
    public CompletableFuture<Long> append(byte[] batch) {
        RaftClientRequest request = RaftClientRequest.newBuilder().setClientId(clientId).setServerId(server.getId())
            .setGroupId(groupId).setCallId(callIds.incrementAndGet()).setMessage(Message.valueOf(ByteString.copyFrom(batch)))
            .setType(RaftClientRequest.writeRequestType()).setTimeoutMs(config.requestTimeoutMs()).build();
        long start = SystemTime.INSTANCE.nanoseconds();
        return submit(request).thenApply(reply -> {
            commitLatencyNanos.accept(SystemTime.INSTANCE.nanoseconds() - start);
            return reply.getLogIndex();
        });
    }

    /** Where {@link #append} reports, for every committed entry, the nanoseconds from submit to commit. */
    public void onCommitLatency(LongConsumer nanos) {
        this.commitLatencyNanos = nanos;
    }

    /**
     * A linearizable read point (Ratis ReadIndex): completes, on any node, with an index at least as new as every
     * entry committed before the call, once this node has applied up to it.
     */
    public CompletableFuture<Long> readIndex() {
        RaftClientRequest request = RaftClientRequest.newBuilder().setClientId(clientId).setServerId(server.getId())
            .setGroupId(groupId).setCallId(callIds.incrementAndGet()).setMessage(Message.EMPTY)
            .setType(RaftClientRequest.readRequestType()).setTimeoutMs(config.requestTimeoutMs()).build();
        return submit(request).thenApply(r -> Long.parseLong(r.getMessage().getContent().toStringUtf8()));
    }

    private CompletableFuture<RaftClientReply> submit(RaftClientRequest request) {
        try {
            return server.submitClientRequestAsync(request).thenCompose(reply -> {
                if (!reply.isSuccess()) {
                    return CompletableFuture.failedFuture(reply.getException() != null ? reply.getException()
                        : new IOException("request failed: " + reply));
                }
                return CompletableFuture.completedFuture(reply);
            });
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Changes the membership through Ratis (joint consensus), using the List overload that 3.2.x handles
     * correctly. Blocking; call off the gRPC event loop.
     */
    public void setConfiguration(List<RaftPeer> newVoters, List<RaftPeer> newListeners) throws IOException {
        List<RaftPeer> all = new ArrayList<>(newVoters);
        all.addAll(newListeners);
        all.addAll(voters());
        all.addAll(listeners());
        RaftGroup group = RaftGroup.valueOf(groupId, all.stream().distinct().toList());
        try (RaftClient client = RaftClient.newBuilder().setClientId(ClientId.randomId()).setRaftGroup(group)
            .setLeaderId(division.getInfo().getLeaderId()).setProperties(properties).setParameters(parameters)
            .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(20, TimeDuration.valueOf(200, TimeUnit.MILLISECONDS)))
            .build()) {
            RaftClientReply reply = client.admin().setConfiguration(newVoters, newListeners);
            if (!reply.isSuccess()) {
                throw new IOException("membership change failed: " + reply.getException());
            }
        }
    }

    /** The voters as node id to address, from the current Raft configuration. */
    public Map<Integer, String> voterAddresses() {
        Map<Integer, String> out = new java.util.TreeMap<>();
        voters().forEach(p -> out.put(nodeIdOf(p.getId()), p.getAddress()));
        return out;
    }

    @Override
    public synchronized void close() throws IOException {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
