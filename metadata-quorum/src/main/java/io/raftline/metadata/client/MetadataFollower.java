package io.raftline.metadata.client;

import io.raftline.grpc.TransportSecurity;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.raftline.common.Time;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.controller.ControllerServiceGrpc;
import io.raftline.protocol.controller.FetchMetadataRequest;
import io.raftline.protocol.controller.FetchMetadataResponse;
import java.io.Closeable;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a broker's {@link MetadataImage} up to date by streaming committed entries (FetchMetadata) from any quorum
 * node. When the stream breaks, or stays silent past {@link #STALL_TIMEOUT_MS} (the server sends a keep-alive
 * every second), it reconnects to the next node and continues from its index, so a quorum leader change or a node's
 * death costs at most a reconnect. A node that answers with a snapshot (the follower was too far behind) replaces
 * the image; listeners then get the difference. It prefers to stream from the active controller named in the
 * metadata: the Ratis leader applies an entry as soon as it commits, while a Ratis follower learns of the commit
 * only with the leader's next append or heartbeat, which would add up to a heartbeat interval of delay.
 *
 * <p>One thread: every response is applied, and every listener called, on the follower's own thread, in order.
 * {@link #currentImage()} is a volatile read from anywhere.
 */
public final class MetadataFollower implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(MetadataFollower.class);
    static final long STALL_TIMEOUT_MS = 3000;
    private static final long RECONNECT_BACKOFF_MS = 100;

    private record Waiter(long index, CompletableFuture<Void> future) {
    }

    private final int nodeId;
    private final List<InetSocketAddress> endpoints;
    private final Time time;
    private final ScheduledExecutorService thread;
    private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
    private final List<MetadataListener> listeners = new CopyOnWriteArrayList<>();
    private final PriorityQueue<Waiter> waiters = new PriorityQueue<>((a, b) -> Long.compare(a.index(), b.index()));
    private volatile MetadataImage image = MetadataImage.EMPTY;
    private volatile long quorumCommitIndex;
    private volatile boolean closed;
    private int endpointIndex;
    /** The active controller's endpoint from the metadata, tried first; null after it failed. */
    private InetSocketAddress preferred;
    private InetSocketAddress current;
    private long generation;
    private ClientCallStreamObserver<FetchMetadataRequest> call;
    private long lastMessageMs;

    /** {@code nodeId} names the fetcher in the quorum's logs; the first endpoint tried is spread by it. */
    private final TransportSecurity security;

    public MetadataFollower(int nodeId, List<InetSocketAddress> controllerEndpoints, Time time) {
        this(nodeId, controllerEndpoints, time, TransportSecurity.plaintext());
    }

    /** {@code security}: plaintext or TLS to the controller.listener. */
    public MetadataFollower(int nodeId, List<InetSocketAddress> controllerEndpoints, Time time, TransportSecurity security) {
        this.security = security;
        if (controllerEndpoints.isEmpty()) {
            throw new IllegalArgumentException("no controller endpoints");
        }
        this.nodeId = nodeId;
        this.endpoints = List.copyOf(controllerEndpoints);
        this.time = time;
        this.endpointIndex = Math.floorMod(nodeId, endpoints.size());
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "metadata-follower-" + nodeId);
            t.setDaemon(true);
            return t;
        });
    }

    public void addListener(MetadataListener listener) {
        listeners.add(listener);
    }

    public void removeListener(MetadataListener listener) {
        listeners.remove(listener);
    }

    /** Connects and keeps following until {@link #close()}. */
    public void start() {
        thread.execute(this::connect);
        thread.scheduleWithFixedDelay(this::checkStall, STALL_TIMEOUT_MS / 3, STALL_TIMEOUT_MS / 3, TimeUnit.MILLISECONDS);
    }

    public MetadataImage currentImage() {
        return image;
    }

    /** The quorum's commit index as last reported by the node streamed from: image lag = this minus the image index. */
    public long quorumCommitIndex() {
        return quorumCommitIndex;
    }

    /** Completes (on the follower thread) once the image has reached {@code index}; at once if it already has. */
    public CompletableFuture<Void> awaitIndex(long index) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (image.index() >= index) {
            f.complete(null);
            return f;
        }
        try {
            thread.execute(() -> {
                if (image.index() >= index) {
                    f.complete(null);
                } else {
                    waiters.add(new Waiter(index, f));
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            f.completeExceptionally(new IllegalStateException("metadata follower closed"));
        }
        return f;
    }

    private void connect() {
        if (closed) {
            return;
        }
        InetSocketAddress target = preferred != null ? preferred : endpoints.get(endpointIndex);
        current = target;
        long gen = ++generation;
        lastMessageMs = time.hiResMilliseconds();
        // Always over the network, even to this node's own controller: while it ran in-process, creates through that
        // node stalled ~1 s now and then (about the keep-alive period), and the stream was not ruled out as the cause.
        ManagedChannel channel = channels.computeIfAbsent(target.getHostString() + ":" + target.getPort(),
            k -> security.secure(NettyChannelBuilder.forAddress(target.getHostString(), target.getPort()))
                .maxInboundMessageSize(256 << 20).executor(thread).build());
        FetchMetadataRequest request = FetchMetadataRequest.newBuilder().setNodeId(nodeId).setFromIndex(image.index() + 1)
            .build();
        ControllerServiceGrpc.newStub(channel).fetchMetadata(request,
            new ClientResponseObserver<FetchMetadataRequest, FetchMetadataResponse>() {
                @Override
                public void beforeStart(ClientCallStreamObserver<FetchMetadataRequest> requestStream) {
                    call = requestStream;
                }

                @Override
                public void onNext(FetchMetadataResponse response) {
                    if (gen == generation) {
                        handle(response);
                    }
                }

                @Override
                public void onError(Throwable t) {
                    if (gen == generation) {
                        LOG.debug("metadata stream from {} failed: {}", target, t.toString());
                        reconnect();
                    }
                }

                @Override
                public void onCompleted() {
                    if (gen == generation) {
                        reconnect();
                    }
                }
            });
    }

    /** Runs on the follower thread (the channel's executor). */
    private void handle(FetchMetadataResponse response) {
        lastMessageMs = time.hiResMilliseconds();
        quorumCommitIndex = Math.max(quorumCommitIndex, response.getCommitIndex());
        if (response.hasSnapshot() && response.getSnapshot().getLastAppliedIndex() > image.index()) {
            MetadataImage loaded = MetadataDelta.replayAll(MetadataImage.EMPTY, response.getSnapshot().getLastAppliedIndex(),
                response.getSnapshot().getRecordsList()).image();
            publish(MetadataDelta.diff(image, loaded));
        }
        for (FetchMetadataResponse.Entry e : response.getEntriesList()) {
            if (e.getIndex() <= image.index()) {
                continue;
            }
            if (e.getBatch().getRecordsCount() == 0) {
                image = image.withIndex(e.getIndex());
            } else {
                publish(MetadataDelta.replayBatch(image, e.getIndex(), e.getBatch()));
            }
        }
        completeWaiters();
    }

    private void publish(MetadataDelta delta) {
        image = delta.image();
        if (delta.controllerChanged()) {
            followController();
        }
        for (MetadataListener l : listeners) {
            try {
                l.onUpdate(delta, image);
            } catch (RuntimeException ex) {
                LOG.error("metadata listener failed at index {}", image.index(), ex);
            }
        }
    }

    /** Moves the stream to the new active controller, if it is not the node streamed from already. */
    private void followController() {
        var e = image.controllerEndpoint();
        if (e.getPort() <= 0 || closed) {
            return;
        }
        InetSocketAddress controller = InetSocketAddress.createUnresolved(e.getHost(), e.getPort());
        if (current != null && current.getPort() == controller.getPort()
            && current.getHostString().equals(controller.getHostString())) {
            preferred = current;
            return;
        }
        preferred = controller;
        generation++;
        if (call != null) {
            call.cancel("following the active controller", null);
            call = null;
        }
        thread.execute(this::connect);
    }

    private void completeWaiters() {
        long index = image.index();
        while (!waiters.isEmpty() && waiters.peek().index() <= index) {
            waiters.poll().future().complete(null);
        }
    }

    private void reconnect() {
        if (closed) {
            return;
        }
        generation++;
        if (call != null) {
            call.cancel("reconnecting", null);
            call = null;
        }
        if (preferred != null) {
            preferred = null;
        } else {
            endpointIndex = (endpointIndex + 1) % endpoints.size();
        }
        thread.schedule(this::connect, RECONNECT_BACKOFF_MS, TimeUnit.MILLISECONDS);
    }

    private void checkStall() {
        if (!closed && time.hiResMilliseconds() - lastMessageMs > STALL_TIMEOUT_MS) {
            LOG.info("metadata stream silent for {} ms; switching node", time.hiResMilliseconds() - lastMessageMs);
            lastMessageMs = time.hiResMilliseconds();
            reconnect();
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        thread.execute(() -> {
            if (call != null) {
                call.cancel("closed", null);
            }
            List<Waiter> left = new ArrayList<>(waiters);
            waiters.clear();
            left.forEach(w -> w.future().completeExceptionally(new IllegalStateException("metadata follower closed")));
        });
        thread.shutdown();
        try {
            thread.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        channels.values().forEach(ManagedChannel::shutdownNow);
    }
}
