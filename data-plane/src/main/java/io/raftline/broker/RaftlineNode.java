package io.raftline.broker;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.raftline.broker.config.ServerConfig;
import io.raftline.broker.metrics.MetricsServer;
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
    private MetricsServer metricsServer;

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
        metricsServer.start();
        LOG.info("node {} started", config.nodeId());
    }

    /** Null when ready; otherwise why not (for /ready). */
    String notReadyReason() {
        return null;
    }

    /** Stops every role; safe to call more than once and from the shutdown hook. */
    public void shutdown() {
        if (!shuttingDown.compareAndSet(false, true)) {
            return;
        }
        LOG.info("stopping node {}", config.nodeId());
        if (metricsServer != null) {
            metricsServer.close();
        }
        registry.close();
        LOG.info("node {} stopped", config.nodeId());
        stopped.countDown();
    }

    public void awaitShutdown() throws InterruptedException {
        stopped.await();
    }
}
