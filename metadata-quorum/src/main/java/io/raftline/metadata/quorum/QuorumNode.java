package io.raftline.metadata.quorum;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.raftline.common.Time;
import io.raftline.metadata.client.LocalControllers;
import io.raftline.metadata.controller.ControllerConfig;
import io.raftline.metadata.image.BrokerRegistration;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.controller.DescribeQuorumResponse;
import io.raftline.protocol.metadata.Endpoint;
import java.io.Closeable;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One metadata quorum node: the Ratis server with the metadata state machine, the controller logic that runs
 * while this node is the Ratis leader, and the gRPC ControllerService on controller.listener. The node main
 * calls {@link #start} and {@link #close}.
 */
public final class QuorumNode implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(QuorumNode.class);

    private final QuorumConfig config;
    private final MetadataStateMachine stateMachine;
    private final QuorumServer quorum;
    private final ActiveController controller;
    private final MetadataStreams streams;
    private final ControllerServer server;
    private final List<Gauge> gauges = new ArrayList<>();
    private final List<Meter> meters = new ArrayList<>();
    private final MeterRegistry registry;
    private final Time time;
    private ControllerMetrics controllerMetrics;

    private QuorumNode(QuorumConfig config, MetadataStateMachine stateMachine, QuorumServer quorum, ActiveController controller,
                       MetadataStreams streams, ControllerServer server, MeterRegistry registry, Time time) {
        this.time = time;
        this.config = config;
        this.stateMachine = stateMachine;
        this.quorum = quorum;
        this.controller = controller;
        this.streams = streams;
        this.server = server;
        this.registry = registry;
    }

    /**
     * Starts the node: binds controller.listener, starts Ratis (formatting {@code <metadata.dir>/ratis} when it is
     * empty, recovering otherwise), and begins campaigning. Returns once both listeners are bound; the quorum
     * elects a leader shortly after (see {@link #isActiveController()} and {@link #image()}).
     */
    public static QuorumNode start(QuorumConfig config, ControllerConfig controllerConfig, Time time, MeterRegistry registry)
        throws IOException {
        return start(config, controllerConfig, time, registry, new LocalControllers());
    }

    /**
     * As {@link #start(QuorumConfig, ControllerConfig, Time, MeterRegistry)}; the controller listener registers in
     * {@code localControllers}, so this JVM's broker (given the same instance) calls it in-process.
     */
    public static QuorumNode start(QuorumConfig config, ControllerConfig controllerConfig, Time time, MeterRegistry registry,
                                   LocalControllers localControllers) throws IOException {
        return start(config, controllerConfig, time, registry, new QuorumRpc.Hooks(), localControllers);
    }

    /** With the quorum RPC's hooks given too (tests). */
    static QuorumNode start(QuorumConfig config, ControllerConfig controllerConfig, Time time, MeterRegistry registry,
                            QuorumRpc.Hooks rpcHooks, LocalControllers localControllers) throws IOException {
        MetadataStateMachine stateMachine = new MetadataStateMachine(config.clusterId(), config.cachedEntries());
        QuorumServer quorum = new QuorumServer(config, stateMachine, rpcHooks);
        MetadataStreams streams = new MetadataStreams(stateMachine, quorum, config.nodeId(), time);
        ActiveController controller = new ActiveController(config.nodeId(), controllerConfig, config.clusterId(), quorum,
            stateMachine, time, new SecureRandom(), config.requestTimeoutMs() + 1000);
        ControllerServer server = new ControllerServer(config.controllerHost(), config.controllerPort(), quorum, stateMachine,
            controller, streams, config.nodeId(), localControllers, config.security());
        try {
            server.start();
            server.setSelfEndpoint(config.nodeId(), config.controllerAdvertisedHost(), server.port());
            quorum.start();
            controller.start(Endpoint.newBuilder().setName("controller").setHost(config.controllerAdvertisedHost())
                .setPort(server.port()).build());
        } catch (IOException | RuntimeException e) {
            server.close();
            controller.close();
            streams.close();
            quorum.close();
            throw e;
        }
        stateMachine.addCommitListener(new ControllerEventLog(controller::isActive));
        QuorumNode node = new QuorumNode(config, stateMachine, quorum, controller, streams, server, registry, time);
        node.registerMetrics();
        LOG.info("quorum node {} started: quorum {}:{}, controller {}:{}", config.nodeId(), config.quorumHost(),
            config.quorumPort(), config.controllerHost(), server.port());
        return node;
    }

    private void registerMetrics() {
        if (registry == null) {
            return;
        }
        gauges.add(Gauge.builder("raftline.controller.active", controller, c -> c.isActive() ? 1 : 0)
            .description("1 on the active controller").tag("node", Integer.toString(config.nodeId())).register(registry));
        gauges.add(Gauge.builder("raftline.brokers.fenced", stateMachine,
            sm -> sm.image().brokers().values().stream().filter(BrokerRegistration::fenced).count())
            .description("fenced brokers in this node's metadata").tag("node", Integer.toString(config.nodeId()))
            .register(registry));
        gauges.add(Gauge.builder("raftline.quorum.term", quorum, QuorumServer::term)
            .description("Raft term this node is in").register(registry));
        gauges.add(Gauge.builder("raftline.quorum.leader", quorum, QuorumServer::leaderId)
            .description("Node id of the quorum leader this node knows, -1 when none").register(registry));
        gauges.add(Gauge.builder("raftline.quorum.commit.index", quorum, QuorumServer::commitIndex)
            .description("Raft commit index on this node").register(registry));
        FunctionCounter elections = FunctionCounter.builder("raftline.quorum.leader.elections", stateMachine,
                MetadataStateMachine::leaderChanges)
            .description("Quorum leaders this node has seen elected").register(registry);
        Timer commitLatency = Timer.builder("raftline.quorum.commit.latency")
            .description("From a controller write's submit to its commit, on the active controller")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(10))
            .register(registry);
        quorum.onCommitLatency(nanos -> commitLatency.record(nanos, TimeUnit.NANOSECONDS));
        for (RaftPeer voter : quorum.voters()) {
            int id = QuorumServer.nodeIdOf(voter.getId());
            String tag = Integer.toString(id);
            gauges.add(Gauge.builder("raftline.quorum.voter.lag.entries", server, s -> voterValue(s, id, false))
                .tag("voter", tag).description("On the quorum leader: entries each voter's log is behind the leader's")
                .register(registry));
            gauges.add(Gauge.builder("raftline.quorum.voter.last.contact.seconds", server, s -> voterValue(s, id, true))
                .tag("voter", tag).description("On the quorum leader: time since each voter last answered it")
                .register(registry));
        }
        gauges.add(Gauge.builder("raftline.quorum.snapshot.lag.entries", this, QuorumNode::snapshotLagEntries)
            .description("Committed entries since this node's latest metadata snapshot (its age in entries)")
            .register(registry));
        gauges.add(Gauge.builder("raftline.quorum.snapshot.size.bytes", this, QuorumNode::snapshotSizeBytes)
            .description("Size of this node's latest metadata snapshot file, 0 before the first").register(registry));
        meters.add(elections);
        meters.add(commitLatency);
        controllerMetrics = new ControllerMetrics(registry, controller, stateMachine, time);
    }

    /** A voter's lag (entries) or last contact (seconds) as the leader sees it; NaN on other nodes. */
    private static double voterValue(ControllerServer server, int id, boolean contact) {
        DescribeQuorumResponse.Peer p = server.voterProgress().get(id);
        if (p == null) {
            return Double.NaN;
        }
        return contact ? Math.max(0, p.getLastContactMs()) / 1000.0 : p.getLagEntries();
    }

    private double snapshotLagEntries() {
        SnapshotInfo snapshot = stateMachine.getLatestSnapshot();
        return Math.max(0, quorum.commitIndex() - (snapshot == null ? 0 : snapshot.getIndex()));
    }

    private double snapshotSizeBytes() {
        SnapshotInfo snapshot = stateMachine.getLatestSnapshot();
        if (snapshot == null || snapshot.getFiles() == null) {
            return 0;
        }
        long total = 0;
        for (FileInfo f : snapshot.getFiles()) {
            total += f.getPath().toFile().length();
        }
        return total;
    }

    public int nodeId() {
        return config.nodeId();
    }

    /** True while this node is the active controller (Ratis leader, its controller-change record committed). */
    public boolean isActiveController() {
        return controller.isActive();
    }

    /** The committed metadata as applied on this node. */
    public MetadataImage image() {
        return stateMachine.image();
    }

    /** The bound controller.listener port. */
    public int controllerPort() {
        return server.port();
    }

    ActiveController activeController() {
        return controller;
    }

    public QuorumServer quorumServer() {
        return quorum;
    }

    public MetadataStateMachine stateMachine() {
        return stateMachine;
    }

    /** Stops the gRPC service, the controller and Ratis (Ratis's close takes about a second). */
    @Override
    public void close() throws IOException {
        if (registry != null) {
            gauges.forEach(registry::remove);
            meters.forEach(registry::remove);
            if (controllerMetrics != null) {
                controllerMetrics.close();
            }
        }
        server.close();
        controller.close();
        streams.close();
        quorum.close();
    }
}
