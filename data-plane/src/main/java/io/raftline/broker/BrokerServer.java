package io.raftline.broker;

import io.raftline.broker.config.NodeSecurity;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.ChannelOption;
import io.raftline.metadata.client.LocalControllers;
import io.raftline.common.config.HostPort;
import io.raftline.broker.config.ServerConfig;
import io.raftline.broker.security.RequestAuthorizer;
import io.raftline.common.tls.SecurityConfig;
import io.raftline.grpc.TransportSecurity;
import java.util.HashSet;
import java.util.Set;
import io.raftline.broker.group.ExecutorGroupScheduler;
import io.raftline.broker.group.GroupConfig;
import io.raftline.broker.group.GroupCoordinator;
import io.raftline.broker.group.GroupRpcService;
import io.raftline.broker.group.OffsetsTopic;
import io.raftline.broker.kafka.KafkaApis;
import io.raftline.broker.fetchsession.FetchSessionCache;
import io.raftline.broker.kafka.KafkaDataApis;
import io.raftline.broker.kafka.KafkaGroupApis;
import io.raftline.broker.kafka.KafkaListener;
import io.raftline.broker.log.LogConfig;
import io.raftline.broker.log.LogManager;
import io.raftline.broker.metrics.BrokerMetrics;
import io.raftline.broker.metrics.CpuTimeThreads;
import io.raftline.broker.metrics.TimedExecutor;
import io.raftline.broker.metrics.PartitionMetrics;
import io.raftline.broker.replica.ReplicaFetcherManager;
import io.raftline.broker.replica.ReplicaManager;
import io.raftline.broker.replica.TopicPartition;
import io.raftline.broker.rpc.BrokerRpcService;
import io.raftline.broker.rpc.ProducerIdManager;
import io.raftline.broker.rpc.RequestLimits;
import io.raftline.broker.rpc.ServedImage;
import io.raftline.common.Time;
import io.raftline.grpc.AliasingMarshaller;
import io.raftline.grpc.TransportAllocator;
import io.raftline.metadata.client.BrokerLifecycleManager;
import io.raftline.metadata.client.BrokerMetadataClient;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.ProduceRequest;
import io.raftline.protocol.metadata.Endpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.SplittableRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker role of a node: the logs, the replica manager, the metadata follower and lifecycle (register,
 * heartbeat, controlled shutdown), the gRPC service on {@code broker.listener}, and Kafka's wire protocol on
 * {@code kafka.listener} when set.
 *
 * <p>Start order: logs (recovered), metadata client, gRPC server; the replica manager takes roles once the
 * follower has caught up with the quorum's committed metadata (so a half-read log never makes this broker drop a
 * replica it should keep). Stop order: controlled shutdown (leaderships move away first), gRPC server, replicas,
 * logs, metadata client.
 */
public final class BrokerServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerServer.class);

    private final ServerConfig config;
    private final String clusterId;
    private final Time time;
    private final MeterRegistry registry;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService requestExecutor;
    private LogManager logManager;
    private BrokerMetadataClient metadata;
    private ReplicaManager replicaManager;
    private Server server;
    /** broker.listener's event loops (gRPC's NIO defaults, made here because its channels are ours). */
    private final io.netty.channel.EventLoopGroup grpcBoss = eventLoops(new CpuTimeThreads("broker-listener-boss", 1));
    private final CpuTimeThreads grpcWorkerThreads = new CpuTimeThreads("broker-listener-worker",
        io.netty.util.NettyRuntime.availableProcessors() * 2);
    private final io.netty.channel.EventLoopGroup grpcWorkers = eventLoops(grpcWorkerThreads);
    /** The gRPC request executor, timed for the request-handler idle ratio. */
    private final TimedExecutor requestHandlers;
    private KafkaListener kafkaListener;
    private GroupCoordinator groupCoordinator;
    private ExecutorGroupScheduler groupScheduler;
    private ExecutorService groupLoader;
    private volatile boolean caughtUp;
    private final LocalControllers localControllers;
    /**
     * The linearizable metadata read point (Ratis ReadIndex, through the quorum leader) the image must reach before
     * this broker counts itself caught up; -1 until one is obtained. Guarded by {@link #metadataLock}.
     */
    private long catchUpTarget = -1;
    private boolean readPointInFlight;
    private boolean warnedNoReadPoint;
    /** What metadata reads and forwarded admin writes are answered from (published before the replicas apply it). */
    private final ServedImage servedImage = new ServedImage();
    /** The image the replicas have applied (behind {@link #servedImage} while a change is being applied). */
    private final ServedImage appliedImage = new ServedImage();
    /**
     * Applies metadata changes to the replicas, in order, off the metadata follower's thread: creating a new topic's
     * logs costs fsyncs, and the follower must keep publishing newer images meanwhile (see {@link ServedImage}).
     */
    private final ExecutorService replicaApplier;
    private volatile boolean closing;
    /** Serialises metadata application between the follower's thread and the catch-up timer. */
    private final Object metadataLock = new Object();

    private final NodeSecurity security;

    public BrokerServer(ServerConfig config, String clusterId, Time time, MeterRegistry registry) {
        this(config, clusterId, time, registry, new LocalControllers());
    }

    /** {@code localControllers}: the controllers in this process (a combined node's), called in-process. */
    public BrokerServer(ServerConfig config, String clusterId, Time time, MeterRegistry registry,
                        LocalControllers localControllers) {
        this(config, clusterId, time, registry, localControllers, NodeSecurity.from(config, time));
    }

    /** {@code security}: the node's TLS (its broker.listener, follower fetches, links to the controllers). */
    public BrokerServer(ServerConfig config, String clusterId, Time time, MeterRegistry registry,
                        LocalControllers localControllers, NodeSecurity security) {
        this.security = security;
        this.localControllers = localControllers;
        this.config = config;
        this.clusterId = clusterId;
        this.time = time;
        this.registry = registry;
        this.scheduler = Executors.newScheduledThreadPool(2, daemon("broker-scheduler"));
        this.requestExecutor = Executors.newFixedThreadPool(config.getInt("num.io.threads"), daemon("broker-request"));
        this.requestHandlers = new TimedExecutor(requestExecutor, config.getInt("num.io.threads"), time);
        this.replicaApplier = Executors.newSingleThreadExecutor(daemon("replica-applier"));
    }

    /**
     * ACLs on client requests when {@code authorizer.enabled}: super.users and this node's own certificate principal
     * may do anything. On the Kafka listener (no TLS or SASL yet) every caller is User:ANONYMOUS.
     */
    static RequestAuthorizer requestAuthorizer(ServerConfig config, NodeSecurity security,
                                               java.util.function.Supplier<MetadataImage> image) {
        if (!config.getBoolean(SecurityConfig.AUTHORIZER_ENABLED)) {
            return RequestAuthorizer.OFF;
        }
        Set<String> superUsers = new HashSet<>(SecurityConfig.superUsers(config.getString(SecurityConfig.SUPER_USERS)));
        String own = security.broker().ownPrincipal();
        if (!own.equals(TransportSecurity.ANONYMOUS)) {
            superUsers.add(own);
        }
        return RequestAuthorizer.on(superUsers, config.getBoolean(SecurityConfig.ALLOW_EVERYONE_IF_NO_ACL), image);
    }

    private static java.util.concurrent.ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    public void startup() {
        int brokerId = config.nodeId();
        logManager = new LogManager(config.logDirs(), LogConfig.fromBrokerProperties(config.originals()), time, scheduler,
            LogManager.Intervals.fromBrokerProperties(config.originals()), config.getLong("log.cleaner.dedupe.buffer.size"));
        logManager.startup();

        HostPort advertised = config.brokerAdvertisedListener();
        List<Endpoint> endpoints = new ArrayList<>();
        endpoints.add(Endpoint.newBuilder().setName("broker").setHost(advertised.host()).setPort(advertised.port()).build());
        HostPort kafkaAdvertised = config.kafkaAdvertisedListener();
        if (kafkaAdvertised != null) {
            // Kafka clients learn each broker's address from Metadata answers, which list this endpoint.
            endpoints.add(Endpoint.newBuilder().setName(KafkaApis.ENDPOINT).setHost(kafkaAdvertised.host())
                .setPort(kafkaAdvertised.port()).build());
        }
        List<InetSocketAddress> controllers = config.controllerBootstrapServers().stream()
            .map(hp -> InetSocketAddress.createUnresolved(hp.host(), hp.port())).toList();
        metadata = new BrokerMetadataClient(brokerId, clusterId, controllers, endpoints, config.rack(), time,
            config.getInt("broker.heartbeat.interval.ms"), localControllers, security.controller());

        ReplicaFetcherManager.Settings fetcherSettings = new ReplicaFetcherManager.Settings(
            config.getInt("replica.fetch.wait.max.ms"), config.getInt("replica.fetch.min.bytes"),
            config.getInt("replica.fetch.max.bytes"), config.getInt("replica.fetch.response.max.bytes"),
            config.getInt("replica.fetch.backoff.ms"), config.getInt("request.timeout.ms"), security.broker());
        replicaManager = new ReplicaManager(brokerId, time, logManager, config.originals(), scheduler,
            request -> metadata.channel().alterPartition(request), () -> metadata.lifecycle().brokerEpoch(),
            config.getLong("replica.lag.time.max.ms"), fetcherSettings);
        replicaManager.refuseWritesWhenCutOff(() -> metadata.lifecycle().msSinceControllerAnswer(),
            config.getInt("broker.session.timeout.ms"));
        metadata.follower().addListener(this::onMetadataUpdate);
        metadata.lifecycle().setOfflineStorage(
            () -> logManager.offlineDirs().stream().map(Path::toString).sorted().toList(), replicaManager::offlineReplicas);
        // Told on the failing I/O call's thread, possibly under a log's lock: act on the scheduler instead.
        logManager.addListener(dir -> scheduler.execute(() -> {
            replicaManager.onLogDirOffline(dir);
            metadata.lifecycle().heartbeatNow();
        }));

        ProducerIdManager producerIds = new ProducerIdManager(request -> metadata.channel().allocateProducerIds(request),
            () -> brokerId, () -> metadata.lifecycle().brokerEpoch());
        BrokerMetrics metrics = new BrokerMetrics(registry, replicaManager, () -> metadata.follower().currentImage().index(),
            () -> metadata.follower().quorumCommitIndex(), time);
        replicaManager.setIsrChangeListener(metrics::isrChanged);
        replicaManager.setReplicatedListener(metrics::recordReplicated);
        metrics.addIdleRatio("raftline.request.handler.idle.ratio", "pool", "grpc", requestHandlers);
        metrics.addIdleRatio("raftline.network.thread.idle.ratio", "listener", "broker", grpcWorkerThreads);
        PartitionMetrics partitionMetrics = new PartitionMetrics(registry, replicaManager, logManager, time,
            config.getInt(ServerConfig.METRICS_PARTITION_SERIES_MAX));
        scheduler.scheduleWithFixedDelay(() -> refreshMetrics(metrics, partitionMetrics), 1, 5, TimeUnit.SECONDS);
        RequestAuthorizer authorizer = requestAuthorizer(config, security, servedImage::current);
        io.raftline.broker.quota.ClientQuotas quotas = new io.raftline.broker.quota.ClientQuotas(servedImage::current, time);
        // one cache of incremental fetch sessions (KIP-227) for the whole broker; ids from a seeded generator
        FetchSessionCache fetchSessions = new FetchSessionCache(config.getInt("max.incremental.fetch.session.cache.slots"),
            time, new SplittableRandom(new SecureRandom().nextLong()));
        metrics.addFetchSessions(fetchSessions);
        BrokerRpcService service = new BrokerRpcService(replicaManager, metrics, metadata.channel(), producerIds,
            config.originals(), config.getBoolean("auto.create.topics.enable"), servedImage, appliedImage,
            new RequestLimits(config.getInt("produce.stream.max.in.flight.requests"), config.getInt("queued.max.requests"),
                config.getLong("queued.max.request.bytes"), config.getInt("fetch.stream.max.in.flight.requests"),
                config.getInt("fetch.max.bytes")), security.broker().identifiesClients() ? security.nodePrincipals() : p -> true,
            clusterId, authorizer, quotas, fetchSessions);
        Gauge.builder("raftline.produce.queued.requests", service, BrokerRpcService::queuedProduceRequests)
            .description("Produce requests this broker holds (read, not answered); at most queued.max.requests")
            .register(registry);
        Gauge.builder("raftline.produce.queued.bytes", service, BrokerRpcService::queuedProduceBytes)
            .description("Bytes of the produce requests this broker holds").register(registry);
        Gauge.builder("raftline.produce.streams.waiting", service, BrokerRpcService::produceStreamsWaitingForRoom)
            .description("Producer connections this broker stopped reading until it holds fewer requests")
            .register(registry);
        BrokerOffsetsTopic offsetsTopic = new BrokerOffsetsTopic(replicaManager, metadata.channel(),
            config.getInt("offsets.topic.num.partitions"), config.getInt("offsets.commit.timeout.ms"));
        groupScheduler = new ExecutorGroupScheduler("group-coordinator-" + brokerId);
        groupLoader = Executors.newSingleThreadExecutor(daemon("group-loader"));
        groupCoordinator = new GroupCoordinator(brokerId, GroupConfig.from(config), offsetsTopic, time, groupScheduler,
            groupLoader, new SecureRandom());
        replicaManager.addLeadershipListener(new ReplicaManager.LeadershipListener() {
            @Override
            public void onBecomeLeader(TopicPartition tp, int leaderEpoch) {
                if (tp.topic().equals(OffsetsTopic.NAME)) {
                    groupCoordinator.onBecomeLeader(tp.partition(), leaderEpoch);
                }
            }

            @Override
            public void onResign(TopicPartition tp) {
                if (tp.topic().equals(OffsetsTopic.NAME)) {
                    groupCoordinator.onResign(tp.partition());
                }
            }
        });
        groupCoordinator.startup();
        metrics.setGroupSource(groupCoordinator::snapshot);
        HostPort listener = config.brokerListener();
        int maxMessage = config.getInt("message.max.bytes");
        int maxRequest = config.getInt("socket.request.max.bytes");
        if (maxRequest < maxMessage) {
            throw new IllegalArgumentException("socket.request.max.bytes (" + maxRequest + ") is smaller than message.max.bytes ("
                + maxMessage + "): a batch the log accepts could never arrive");
        }
        io.raftline.broker.security.ImageSasl sasl = new io.raftline.broker.security.ImageSasl(servedImage::current, time,
            security.maxReauthMs());
        // one count per principal over both listeners; the nodes (super.users among them) are not counted
        // (unset: nothing counted, and no per-connection slot nor per-call check on either listener)
        int maxPerPrincipal = config.getInt("max.connections.per.principal");
        io.raftline.grpc.PrincipalConnections perPrincipal = maxPerPrincipal == Integer.MAX_VALUE
            ? io.raftline.grpc.PrincipalConnections.UNLIMITED
            : new io.raftline.grpc.PrincipalConnections(maxPerPrincipal, security.nodePrincipals());
        TransportSecurity brokerListener = (security.brokerSasl() ? security.broker().withServerSasl(sasl) : security.broker())
            .withPrincipalConnections(perPrincipal);
        io.raftline.broker.rpc.ConnectionLimits limits = new io.raftline.broker.rpc.ConnectionLimits(
            config.getInt("max.connections"), config.getInt("max.connections.per.ip"),
            io.raftline.broker.rpc.ConnectionLimits.parseOverrides(config.getList("max.connections.per.ip.overrides")));
        server = brokerListener.secure(NettyServerBuilder.forAddress(new InetSocketAddress(listener.host(), listener.port())))
            // accepted sockets past max.connections(.per.ip) are closed before they reach gRPC (NIO, as gRPC's default)
            .channelFactory(limits.serverChannels())
            .bossEventLoopGroup(grpcBoss)
            .workerEventLoopGroup(grpcWorkers)
            .executor(requestHandlers)
            .maxInboundMessageSize(maxRequest)
            .flowControlWindow(config.getInt("broker.flow.control.window.bytes"))
            .permitKeepAliveTime(10, TimeUnit.SECONDS)
            // buffers reused from response to response instead of fresh, zeroed memory (TransportAllocator)
            .withChildOption(ChannelOption.ALLOCATOR, TransportAllocator.server())
            // Produce requests parsed in place: the batches alias the received message (one copy fewer per byte).
            .addService(brokerListener.intercept(AliasingMarshaller.aliasingRequests(service.bindService(),
                BrokerServiceGrpc.getProduceMethod(), ProduceRequest.getDefaultInstance()), security.nodePrincipals(), false))
            .addService(brokerListener.intercept(GroupRpcService.serviceDefinition(groupCoordinator, authorizer),
                security.nodePrincipals(), false))
            .build();
        try {
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on broker.listener " + listener + ": " + e.getMessage(), e);
        }
        HostPort kafkaAddress = config.kafkaListener();
        if (kafkaAddress != null) {
            KafkaDataApis kafkaData = new KafkaDataApis(replicaManager, service, config.getInt("fetch.max.bytes"), quotas,
                metrics, fetchSessions, authorizer);
            KafkaGroupApis kafkaGroups = new KafkaGroupApis(groupCoordinator, servedImage);
            KafkaApis kafkaApis = new KafkaApis(service, servedImage, clusterId, kafkaData, kafkaGroups, authorizer);
            kafkaListener = KafkaListener.start(kafkaAddress, kafkaApis, service.produceAdmission(), maxRequest,
                config.getInt("produce.stream.max.in.flight.requests"), security.kafka().withPrincipalConnections(perPrincipal),
                security.kafkaSasl() ? sasl : null,
                limits);
            metrics.addIdleRatio("raftline.network.thread.idle.ratio", "listener", "kafka", kafkaListener.busyTime());
            LOG.info("broker {} speaks Kafka's protocol on {} (advertised {})", brokerId, kafkaAddress, kafkaAdvertised);
        }
        replicaManager.startup();
        metadata.start();
        scheduler.scheduleWithFixedDelay(this::checkCaughtUp, 100, 100, TimeUnit.MILLISECONDS);
        LOG.info("broker {} listening on {} (advertised {})", brokerId, listener, advertised);
    }

    /**
     * One refresh of the gauges that read partitions and groups. A failure is logged and the next refresh runs: a
     * periodic task that throws is never run again, and its gauges would freeze or vanish without a word.
     */
    private void refreshMetrics(BrokerMetrics metrics, PartitionMetrics partitionMetrics) {
        try {
            partitionMetrics.refresh();
            metrics.refresh();
        } catch (RuntimeException e) {
            LOG.warn("broker {}: refreshing the partition and group metrics failed: {}", config.nodeId(), e.toString());
        }
    }

    /**
     * On the follower's thread: every committed metadata change, in order. Until the image has reached the quorum's
     * commit index nothing is applied (a half-read log must not make this broker drop replicas it should keep); at
     * that point the whole image is applied once. The check also runs on a timer, since the commit index can move
     * past the image without a further change arriving (a quiet cluster).
     */
    private void onMetadataUpdate(MetadataDelta delta, MetadataImage image) {
        synchronized (metadataLock) {
            try {
                if (!caughtUp) {
                    maybeCatchUp(image);
                    return;
                }
                servedImage.publish(image);
                if (!closing) {
                    replicaApplier.execute(() -> applyToReplicas(delta, image));
                }
            } catch (RuntimeException e) {
                LOG.error("broker {} failed to apply metadata at index {}", config.nodeId(), image.index(), e);
            }
        }
    }

    /** On the replica applier's thread, in the order the follower saw the changes. */
    private void applyToReplicas(MetadataDelta delta, MetadataImage image) {
        if (closing) {
            return;
        }
        try {
            replicaManager.applyDelta(delta, image);
        } catch (RuntimeException e) {
            LOG.error("broker {} failed to apply metadata at index {}", config.nodeId(), image.index(), e);
        }
        appliedImage.publish(image);
    }

    private void checkCaughtUp() {
        synchronized (metadataLock) {
            if (!caughtUp) {
                try {
                    maybeCatchUp(metadata.follower().currentImage());
                } catch (RuntimeException e) {
                    LOG.error("broker {} failed to apply the metadata image", config.nodeId(), e);
                }
            }
        }
    }

    /**
     * Caught up once the image reaches a linearizable read point. Not the commit index of the quorum node streamed
     * from: a node restarted apart from the majority reports its own stale one (its snapshot's index), and a broker
     * that took it would apply a stale image (issue 20, defect 2: MinorityRestartIT).
     */
    private void maybeCatchUp(MetadataImage image) {
        if (catchUpTarget < 0) {
            requestReadPoint();
            return;
        }
        if (image.index() < catchUpTarget) {
            return;
        }
        caughtUp = true;
        LOG.info("broker {} caught up with the metadata at index {}", config.nodeId(), image.index());
        replicaManager.deleteStrayLogs(image);
        MetadataDelta everything = MetadataDelta.replayAll(MetadataImage.EMPTY, image.index(), image.toRecords());
        // Served only after this first full apply: until then reads that name an index wait (as before: the replicas'
        // image was empty until here).
        replicaManager.applyDelta(everything, image);
        appliedImage.publish(image);
        servedImage.publish(image);
    }

    /** Under {@link #metadataLock}: asks any quorum node for a read point, one request at a time. */
    private void requestReadPoint() {
        if (readPointInFlight || closing) {
            return;
        }
        readPointInFlight = true;
        metadata.channel().readIndex().whenComplete((response, err) -> {
            synchronized (metadataLock) {
                readPointInFlight = false;
                if (err == null && response.getError().getCode() == ErrorCode.NONE) {
                    catchUpTarget = Math.max(1, response.getIndex());
                    return;
                }
                if (!warnedNoReadPoint) {
                    warnedNoReadPoint = true;
                    LOG.warn("broker {}: no linearizable metadata read point yet ({}); not serving until a quorum majority"
                        + " answers", config.nodeId(), err != null ? err.toString() : response.getError().getMessage());
                }
            }
        });
    }

    /** Null when ready: caught up with the metadata and unfenced; otherwise why not. */
    public String notReadyReason() {
        if (metadata == null) {
            return "starting";
        }
        if (!caughtUp) {
            return "catching up with the metadata";
        }
        BrokerLifecycleManager.State state = metadata.lifecycle().state();
        return state == BrokerLifecycleManager.State.ACTIVE ? null : "broker is " + state.name().toLowerCase();
    }

    /** Moves this broker's leaderships away before it stops (Kafka's controlled shutdown). */
    public void controlledShutdown() {
        if (metadata == null || !config.getBoolean("controlled.shutdown.enable")) {
            return;
        }
        long timeoutMs = config.getLong("controlled.shutdown.timeout.ms");
        CompletableFuture<Void> done = metadata.lifecycle().controlledShutdown();
        if (!servedImage().controlledShutdownHandsOver(config.nodeId())) {
            // the last node of a cluster stopped one by one: no quorum may be left to answer, and nothing to move
            LOG.info("broker {}: controlled shutdown has nothing to hand over (no other active broker shares its "
                + "partitions); not waiting for the controller", config.nodeId());
            return;
        }
        try {
            done.get(timeoutMs, TimeUnit.MILLISECONDS);
            LOG.info("broker {}: controlled shutdown done, no leaderships left", config.nodeId());
        } catch (TimeoutException e) {
            LOG.warn("broker {}: controlled shutdown did not finish within {} ms; stopping anyway", config.nodeId(), timeoutMs);
        } catch (Exception e) {
            LOG.warn("broker {}: controlled shutdown failed: {}; stopping anyway", config.nodeId(), e.toString());
        }
    }

    private static io.netty.channel.EventLoopGroup eventLoops(CpuTimeThreads threads) {
        return new io.netty.channel.MultiThreadIoEventLoopGroup(threads.threads(), threads,
            io.netty.channel.nio.NioIoHandler.newFactory());
    }

    /** The metadata image this broker serves requests with. */
    MetadataImage servedImage() {
        return servedImage.current();
    }

    @Override
    public void close() {
        closing = true;
        if (kafkaListener != null) {
            kafkaListener.close();
        }
        if (server != null) {
            server.shutdown();
        }
        if (groupCoordinator != null) {
            groupCoordinator.shutdown();
            groupScheduler.close();
            groupLoader.shutdownNow();
        }
        // Let a change being applied finish (an interrupt would fail its file I/O and take the log dir offline).
        replicaApplier.shutdown();
        try {
            if (!replicaApplier.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("broker {}: metadata still being applied to the replicas at close", config.nodeId());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (replicaManager != null) {
            replicaManager.close();
        }
        if (metadata != null) {
            metadata.close();
        }
        if (server != null) {
            try {
                server.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            server.shutdownNow();
        }
        if (logManager != null) {
            logManager.shutdown();
        }
        scheduler.shutdownNow();
        requestExecutor.shutdownNow();
        grpcWorkers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        grpcBoss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    public ReplicaManager replicaManager() {
        return replicaManager;
    }
}
