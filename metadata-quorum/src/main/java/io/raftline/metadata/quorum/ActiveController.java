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
 * failed)--> INACTIVE. One writer: every decision happens on the single event thread, in order, each on the image
 * that includes all earlier ones (the Controller's contract), through a {@link WritePipeline}: several entries may
 * be in flight at once, decisions are made on the committed image plus the pending entries, and answers go out
 * only after their entry (and every earlier one) committed, in decision order. Losing leadership or a failed write
 * drops the pending state; the next activation starts again from the committed image.
 */
final class ActiveController implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(ActiveController.class);
    private static final long LEADERSHIP_POLL_MS = 10;
    /** Entries in flight at once; more decisions wait (in order) until the oldest commit. */
    static final int MAX_IN_FLIGHT = 64;

    /** A response and the Raft index of the entry that carried its records (0 when nothing was written). */
    record Committed<T>(T response, long index) {
    }

    private final int nodeId;
    private volatile Endpoint endpoint = Endpoint.getDefaultInstance();
    private final QuorumServer quorum;
    private final MetadataStateMachine stateMachine;
    private final Controller controller;
    private final long writeTimeoutMs;
    private final ControllerEventLoop loop;
    private final WritePipeline pipeline;
    private volatile boolean active;
    /** Event thread only: the controller-change entry is in flight. */
    private boolean activating;
    /** Event thread only: a periodic duty is waiting in the pipeline (so ticks do not pile up behind a slow log). */
    private boolean periodicQueued;

    ActiveController(int nodeId, ControllerConfig config, String clusterId, QuorumServer quorum,
                     MetadataStateMachine stateMachine, Time time, RandomGenerator random, long writeTimeoutMs) {
        this.nodeId = nodeId;
        this.quorum = quorum;
        this.stateMachine = stateMachine;
        this.controller = new Controller(config, clusterId, time, random);
        this.writeTimeoutMs = writeTimeoutMs;
        this.loop = new ControllerEventLoop(nodeId, time);
        this.pipeline = new WritePipeline(stateMachine::image, this::append, loop, MAX_IN_FLIGHT, () -> {
            if (active) {
                active = false;
                LOG.info("node {} stopped being the active controller: a metadata write failed", nodeId);
            }
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

    /** The event thread, for its metrics. */
    ControllerEventLoop eventLoop() {
        return loop;
    }

    private void tick() {
        try {
            checkLeadership();
            if (active && !periodicQueued) {
                periodicQueued = true;
                pipeline.submit(image -> {
                    periodicQueued = false;
                    return new ControllerResult<Void>(controller.periodic(image), after -> null);
                }, false).whenComplete((c, err) -> {
                    periodicQueued = false;
                    if (err != null && !(err instanceof NotControllerException)) {
                        LOG.error("controller periodic duty failed", err);
                    }
                });
            }
        } catch (RuntimeException e) {
            LOG.error("controller periodic duty failed", e);
        }
    }

    private boolean leaderReady() {
        try {
            return quorum.isLeaderReady();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private void checkLeadership() {
        boolean ready = leaderReady();
        if (ready && !active && !activating) {
            activating = true;
            pipeline.submit(image -> new ControllerResult<Void>(controller.activate(image, nodeId, endpoint), after -> null), true)
                .whenComplete((c, err) -> {
                    // Runs on the event thread (the pipeline answers there).
                    activating = false;
                    if (err != null) {
                        LOG.info("node {} could not become the active controller: {}", nodeId, err.getMessage());
                    } else if (leaderReady()) {
                        active = true;
                        LOG.info("node {} is the active controller (epoch {}, index {})", nodeId,
                            stateMachine.image().controllerEpoch(), c.index());
                    }
                });
        } else if (!ready && (active || activating)) {
            boolean was = active;
            active = false;
            pipeline.reset(new NotControllerException("node " + nodeId + " lost the quorum leadership"));
            if (was) {
                LOG.info("node {} is no longer the active controller", nodeId);
            }
        }
    }

    /** Appends the records as one entry; completes with its index once committed and applied here. */
    private CompletableFuture<Long> append(List<MetadataRecord> records) {
        byte[] bytes = MetadataBatch.newBuilder().addAllRecords(records).build().toByteArray();
        return quorum.append(bytes).orTimeout(writeTimeoutMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Decides on the event thread (on the image including every earlier decision), appends the records if any, and
     * completes with the response once they, and every earlier decision's records, are committed. Exclusive
     * decisions (see {@link WritePipeline}) run alone on the committed image. Fails with
     * {@link NotControllerException} when not active.
     */
    <T> CompletableFuture<Committed<T>> submit(Function<MetadataImage, ControllerResult<T>> decision, boolean exclusive) {
        CompletableFuture<Committed<T>> f = new CompletableFuture<>();
        try {
            loop.execute(() -> {
                if (!active) {
                    f.completeExceptionally(new NotControllerException("node " + nodeId + " is not the active controller"));
                    return;
                }
                pipeline.submit(decision, exclusive).whenComplete((c, err) -> {
                    if (err != null) {
                        f.completeExceptionally(err);
                    } else {
                        f.complete(c);
                    }
                });
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            f.completeExceptionally(new NotControllerException("node " + nodeId + " is shutting down"));
        }
        return f;
    }

    @Override
    public void close() {
        active = false;
        try {
            loop.submit(() -> pipeline.reset(new NotControllerException("node " + nodeId + " is shutting down")))
                .get(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | java.util.concurrent.RejectedExecutionException e) {
            LOG.debug("controller event thread did not drain at close", e);
        }
        loop.shutdownNow();
    }
}
