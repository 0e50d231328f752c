package io.raftline.broker;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.raftline.metadata.client.LocalControllers;
import io.raftline.broker.config.ServerConfig;
import io.raftline.broker.metrics.JvmProcessMetrics;
import io.raftline.broker.metrics.MetricsServer;
import io.raftline.common.SystemTime;
import io.raftline.common.Time;
import io.raftline.metadata.quorum.QuorumNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Raftline process: the quorum role (Ratis voter + controller service), the broker role, or both, and the
 * metrics endpoint. Start order: quorum first (a broker needs a controller), then the broker; stop in reverse,
 * the broker with a controlled shutdown.
 */
public final class RaftlineNode {

    private static final Logger LOG = LoggerFactory.getLogger(RaftlineNode.class);

    private final ServerConfig config;
    private final String clusterId;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicBoolean shuttingDown = new AtomicBoolean();
    private final Time time = SystemTime.INSTANCE;
    private MetricsServer metricsServer;
    private JvmProcessMetrics jvmMetrics;
    private volatile QuorumNode quorum;
    private volatile BrokerServer broker;
    /** This process's controller listeners, which its broker calls in-process. */
    private final LocalControllers localControllers = new LocalControllers();

    public RaftlineNode(ServerConfig config, String clusterId) {
        this.config = config;
        this.clusterId = clusterId;
    }

    public void startup() {
        LOG.info("starting node {} of cluster {} with roles {}", config.nodeId(), clusterId,
            config.getList(ServerConfig.PROCESS_ROLES));
        try {
            metricsServer = new MetricsServer(config.metricsListener().toSocketAddress(), registry, this::notReadyReason);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on metrics.listener " + config.metricsListener() + ": "
                + e.getMessage(), e);
        }
        jvmMetrics = new JvmProcessMetrics(registry);
        metricsServer.start();
        if (config.isController()) {
            quorum = QuorumRole.start(config, clusterId, time, registry, localControllers);
        }
        if (config.isBroker()) {
            BrokerServer b = new BrokerServer(config, clusterId, time, registry, localControllers);
            broker = b;
            b.startup();
        }
        LOG.info("node {} started", config.nodeId());
    }

    /** Null when ready; otherwise why not (for /ready). */
    String notReadyReason() {
        if (shuttingDown.get()) {
            return "shutting down";
        }
        QuorumNode q = quorum;
        if (config.isController() && (q == null || q.image().controllerId() < 0)) {
            return "the quorum has no controller yet";
        }
        BrokerServer b = broker;
        if (config.isBroker()) {
            return b == null ? "starting" : b.notReadyReason();
        }
        return null;
    }

    /** Stops every role; safe to call more than once and from the shutdown hook. */
    public void shutdown() {
        if (!shuttingDown.compareAndSet(false, true)) {
            return;
        }
        LOG.info("stopping node {}", config.nodeId());
        BrokerServer b = broker;
        if (b != null) {
            b.controlledShutdown();
            closeQuietly(b, "broker");
        }
        QuorumNode q = quorum;
        if (q != null) {
            closeQuietly(q, "quorum");
        }
        if (metricsServer != null) {
            metricsServer.close();
        }
        if (jvmMetrics != null) {
            jvmMetrics.close();
        }
        registry.close();
        LOG.info("node {} stopped", config.nodeId());
        stopped.countDown();
    }

    private void closeQuietly(AutoCloseable closeable, String what) {
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.warn("node {}: stopping the {} role failed: {}", config.nodeId(), what, e.toString());
        }
    }

    public void awaitShutdown() throws InterruptedException {
        stopped.await();
    }
}
