package io.raftline.broker;

import io.raftline.broker.config.NodeSecurity;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.raftline.metadata.client.LocalControllers;
import io.raftline.broker.config.ServerConfig;
import io.raftline.broker.console.ConsoleHandler;
import io.raftline.broker.console.ConsoleSecurity;
import io.raftline.broker.security.ImageSasl;
import io.raftline.broker.security.RequestAuthorizer;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.common.tls.SecurityConfig;
import io.raftline.metadata.image.MetadataImage;
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
    private NodeSecurity security;
    private ConsoleHandler console;
    private JvmProcessMetrics jvmMetrics;
    private volatile QuorumNode quorum;
    private volatile BrokerServer broker;
    /** This process's controller listeners, which its broker calls in-process. */
    private final LocalControllers localControllers = new LocalControllers();

    public RaftlineNode(ServerConfig config, String clusterId) {
        this.config = config;
        this.clusterId = clusterId;
    }

    /**
     * The console's admin client speaks what broker.listener speaks: over TLS it presents this node's certificate, so
     * it is a node principal (a super user under the authorizer).
     */
    private java.util.Map<String, String> consoleClientSecurity() {
        if (!security.broker().isTls()) {
            return java.util.Map.of();
        }
        java.util.Map<String, String> out = new java.util.HashMap<>();
        out.put(io.raftline.common.tls.SecurityConfig.SECURITY_PROTOCOL, "SSL");
        for (String k : java.util.List.of(io.raftline.common.tls.TlsFiles.TRUSTSTORE_LOCATION,
            io.raftline.common.tls.TlsFiles.CERTIFICATE_LOCATION, io.raftline.common.tls.TlsFiles.KEY_LOCATION)) {
            if (config.getString(k) != null) {
                out.put(k, config.getString(k));
            }
        }
        return out;
    }

    public void startup() {
        LOG.info("starting node {} of cluster {} with roles {}", config.nodeId(), clusterId,
            config.getList(ServerConfig.PROCESS_ROLES));
        // The TLS files are read and checked first: a bad one stops the node here, naming the file.
        security = NodeSecurity.from(config, time);
        try {
            metricsServer = new MetricsServer(config.metricsListener().toSocketAddress(), registry, this::notReadyReason,
                security.metricsSslContext(), security.clientAuth());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on metrics.listener " + config.metricsListener() + ": "
                + e.getMessage(), e);
        }
        console = new ConsoleHandler(config.nodeId(), config.getBoolean(ServerConfig.CONSOLE_ADMIN_ENABLED), registry,
            this::consoleBootstrap, consoleClientSecurity(), consoleSecurity(), time);
        metricsServer.addContext("/ui", console);
        jvmMetrics = new JvmProcessMetrics(registry);
        metricsServer.start();
        if (config.isController()) {
            quorum = QuorumRole.start(config, clusterId, time, registry, localControllers, security);
        }
        if (config.isBroker()) {
            BrokerServer b = new BrokerServer(config, clusterId, time, registry, localControllers, security);
            broker = b;
            b.startup();
        }
        LOG.info("node {} started", config.nodeId());
    }

    /**
     * Brokers for the console to ask the cluster through: this node's own broker listener, or on a controller-only
     * node the brokers registered in its metadata image; null while it knows none.
     */
    String consoleBootstrap() {
        if (config.isBroker()) {
            return config.brokerAdvertisedListener().toString();
        }
        QuorumNode q = quorum;
        if (q == null) {
            return null;
        }
        return q.image().brokers().values().stream()
            .flatMap(b -> b.endpoint("broker").stream())
            .map(e -> e.getHost() + ":" + e.getPort())
            .collect(java.util.stream.Collectors.joining(","));
    }

    /**
     * The console's admin actions: authenticated by the client certificate on the HTTPS metrics listener, authorized
     * by the broker's ACL decision on this node's metadata image (the broker's, or on a controller-only node the
     * quorum's).
     */
    private ConsoleSecurity consoleSecurity() {
        RequestAuthorizer authorizer = BrokerServer.requestAuthorizer(config, security, this::currentImage);
        boolean certificates = security.metricsSslContext() != null && security.clientAuth() != SecurityConfig.ClientAuth.NONE;
        ImageSasl scram = new ImageSasl(this::currentImage, time, 0);
        return new ConsoleSecurity(certificates, authorizer.enabled(), security::principalOf, authorizer::allowed,
            user -> scram.credential(user, ScramMechanism.SCRAM_SHA_512));
    }

    private MetadataImage currentImage() {
        BrokerServer b = broker;
        if (b != null) {
            return b.servedImage();
        }
        QuorumNode q = quorum;
        return q == null ? MetadataImage.EMPTY : q.image();
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
        if (console != null) {
            console.close();
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
