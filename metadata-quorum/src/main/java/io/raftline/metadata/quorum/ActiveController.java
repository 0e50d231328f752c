package io.raftline.metadata.quorum;

import io.raftline.common.Time;
import io.raftline.metadata.controller.Controller;
import io.raftline.metadata.controller.ControllerConfig;
import io.raftline.metadata.controller.ControllerResult;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.metadata.Endpoint;
import io.raftline.protocol.metadata.MetadataBatch;
import io.raftline.protocol.metadata.MetadataRecord;
import java.io.Closeable;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link Controller}'s decisions on this node while it is the active controller, which is the Ratis
 * leader once ready (its first entry of the term committed). On becoming ready it writes a controller-change
 * record with the next controller epoch; only after that commits does it accept requests.
 *
 * <p>States: INACTIVE --(Ratis leader ready, controller-change committed)--> ACTIVE --(leadership lost, or a write
 * failed)--> INACTIVE. One writer: every decision and every append happens on the single event thread, one at a
 * time, each decided on the image that includes all earlier ones (the Controller's contract). Writes wait for
 * their commit on that thread, which serializes metadata writes at about one Raft round trip each.
 */
final class ActiveController implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(ActiveController.class);
    private static final long LEADERSHIP_POLL_MS = 10;

    /** A response and the Raft index of the entry that carried its records (0 when nothing was written). */
    record Committed<T>(T response, long index) {
    }

    private final int nodeId;
    private volatile Endpoint endpoint = Endpoint.getDefaultInstance();
    private final QuorumServer quorum;
    private final MetadataStateMachine stateMachine;
    private final Controller controller;
    private final long writeTimeoutMs;
    private final ScheduledExecutorService loop;
    private volatile boolean active;

    ActiveController(int nodeId, ControllerConfig config, String clusterId, QuorumServer quorum,
                     MetadataStateMachine stateMachine, Time time, RandomGenerator random, long writeTimeoutMs) {
        this.nodeId = nodeId;
        this.quorum = quorum;
        this.stateMachine = stateMachine;
        this.controller = new Controller(config, clusterId, time, random);
        this.writeTimeoutMs = writeTimeoutMs;
        this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "controller-event-" + nodeId);
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts campaigning for the controller role; {@code endpoint} is this node's bound controller.listener. */
    void start(Endpoint controllerEndpoint) {
        this.endpoint = controllerEndpoint;
        stateMachine.addLeadershipListener(() -> loop.execute(this::checkLeadership));
        loop.scheduleWithFixedDelay(this::tick, 0, controller.config().periodicCheckIntervalMs(), TimeUnit.MILLISECONDS);
        // Ratis's leader-ready notification can come before isLeaderReady() turns true: also look often (cheap),
        // so a new leader takes the controller role within a few ms of being ready.
        loop.scheduleWithFixedDelay(() -> {
            if (!active) {
                checkLeadership();
            }
        }, LEADERSHIP_POLL_MS, LEADERSHIP_POLL_MS, TimeUnit.MILLISECONDS);
    }

    boolean isActive() {
        return active;
    }

    Controller controller() {
        return controller;
    }

    private void tick() {
        try {
            checkLeadership();
            if (active) {
                List<MetadataRecord> records = controller.periodic(stateMachine.image());
                if (!records.isEmpty()) {
                    write(records);
                }
            }
        } catch (NotControllerException e) {
            LOG.info("node {} stopped being the active controller: {}", nodeId, e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("controller periodic duty failed", e);
        }
    }

    private void checkLeadership() {
        boolean ready;
        try {
            ready = quorum.isLeaderReady();
        } catch (RuntimeException e) {
            ready = false;
        }
        if (ready && !active) {
            try {
                MetadataImage image = stateMachine.image();
                long index = write(controller.activate(image, nodeId, endpoint));
                active = true;
                LOG.info("node {} is the active controller (epoch {}, index {})", nodeId,
                    stateMachine.image().controllerEpoch(), index);
            } catch (NotControllerException e) {
                LOG.info("node {} could not become the active controller: {}", nodeId, e.getMessage());
            }
        } else if (!ready && active) {
            active = false;
            LOG.info("node {} is no longer the active controller", nodeId);
        }
    }

    /** Appends the records as one entry and waits until it is committed and applied here; returns its index. */
    private long write(List<MetadataRecord> records) throws NotControllerException {
        byte[] bytes = MetadataBatch.newBuilder().addAllRecords(records).build().toByteArray();
        try {
            long index = quorum.append(bytes).get(writeTimeoutMs, TimeUnit.MILLISECONDS);
            if (stateMachine.image().index() < index) {
                // The leader replies after applying; anything else is a broken invariant of the glue.
                throw new IllegalStateException("entry " + index + " committed but the image is at "
                    + stateMachine.image().index());
            }
            return index;
        } catch (ExecutionException e) {
            active = false;
            throw new NotControllerException("write failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            active = false;
            throw new NotControllerException("write not committed within " + writeTimeoutMs + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NotControllerException("interrupted", e);
        }
    }

    /**
     * Decides on the current image on the event thread, appends the records if any, and completes with the
     * response computed after they are applied. Fails with {@link NotControllerException} when not active.
     */
    <T> CompletableFuture<Committed<T>> submit(Function<MetadataImage, ControllerResult<T>> decision) {
        CompletableFuture<Committed<T>> f = new CompletableFuture<>();
        try {
            loop.execute(() -> {
                if (!active) {
                    f.completeExceptionally(new NotControllerException("node " + nodeId + " is not the active controller"));
                    return;
                }
                try {
                    MetadataImage image = stateMachine.image();
                    ControllerResult<T> result = decision.apply(image);
                    if (result.records().isEmpty()) {
                        f.complete(new Committed<>(result.response().apply(image), 0));
                        return;
                    }
                    long index = write(result.records());
                    f.complete(new Committed<>(result.response().apply(stateMachine.image()), index));
                } catch (NotControllerException | RuntimeException e) {
                    f.completeExceptionally(e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            f.completeExceptionally(new NotControllerException("node " + nodeId + " is shutting down"));
        }
        return f;
    }

    @Override
    public void close() {
        active = false;
        loop.shutdownNow();
    }
}
