package io.raftline.metadata.client;

import io.raftline.common.Time;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import io.raftline.protocol.controller.BrokerHeartbeatResponse;
import io.raftline.protocol.controller.OfflineReplica;
import io.raftline.protocol.controller.RegisterBrokerRequest;
import io.raftline.protocol.metadata.Endpoint;
import java.io.Closeable;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's side of liveness: registers with a fresh incarnation id at each start, heartbeats every
 * {@code broker.heartbeat.interval.ms} reporting its metadata index, and tracks what the controller says.
 *
 * <p>States: UNREGISTERED --(registration committed)--> FENCED --(controller unfences: caught up)--> ACTIVE;
 * any --(controller says stale epoch / not registered)--> UNREGISTERED (registers again);
 * ACTIVE --{@link #controlledShutdown()}--> SHUTTING_DOWN --(controller: should shut down)--> STOPPED.
 *
 * <p>Heartbeats are not paced by the controller's answers: the next one goes out an interval after the previous
 * answer, or an interval after the previous send if that one is still unanswered (a controller busy committing
 * writes answers late, and a broker that waited for every answer would fall silent and be fenced though alive).
 * Answers older than one already handled are ignored.
 * One writer: the manager's own thread; the getters are volatile reads.
 */
public final class BrokerLifecycleManager implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerLifecycleManager.class);

    public enum State { UNREGISTERED, FENCED, ACTIVE, SHUTTING_DOWN, STOPPED }

    /** Unanswered heartbeats at most: a controller that answers nothing gets no flood. */
    static final int MAX_OUTSTANDING = 4;

    private final int brokerId;
    private final String clusterId;
    private final List<Endpoint> endpoints;
    private final String rack;
    private final ControllerChannel channel;
    private final MetadataFollower follower;
    private final long heartbeatIntervalMs;
    private final String incarnationId;
    private final Time time;
    private final ScheduledExecutorService thread;
    private final CompletableFuture<Void> unfenced = new CompletableFuture<>();
    private final CompletableFuture<Void> shutdownDone = new CompletableFuture<>();
    private volatile State state = State.UNREGISTERED;
    private volatile long brokerEpoch = -1;
    private volatile boolean wantShutdown;
    private volatile boolean closed;
    /** Manager thread only: sequence number of the last heartbeat sent, of the last one answered, when it was sent. */
    private long sentSeq;
    private long answeredSeq;
    private long lastSentMs;
    /** When (hiResMilliseconds) the controller last answered a registration or heartbeat; any thread reads it. */
    private volatile long lastAnsweredMs = Long.MIN_VALUE;
    private int outstanding;
    /** Manager thread only: the scheduled next heartbeat. */
    private ScheduledFuture<?> nextHeartbeat;
    private volatile Supplier<List<String>> offlineLogDirs = List::of;
    private volatile Supplier<List<OfflineReplica>> offlineReplicas = List::of;

    public BrokerLifecycleManager(int brokerId, String clusterId, List<Endpoint> endpoints, String rack,
                                  ControllerChannel channel, MetadataFollower follower, long heartbeatIntervalMs, Time time) {
        this.brokerId = brokerId;
        this.clusterId = clusterId;
        this.endpoints = List.copyOf(endpoints);
        this.rack = rack == null ? "" : rack;
        this.channel = channel;
        this.follower = follower;
        this.heartbeatIntervalMs = heartbeatIntervalMs;
        this.incarnationId = Uuid.random(new SecureRandom()).toString();
        this.time = time;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "broker-lifecycle-" + brokerId);
            t.setDaemon(true);
            return t;
        });
    }

    public void start() {
        thread.execute(this::register);
        long check = Math.max(1, heartbeatIntervalMs / 4);
        thread.scheduleWithFixedDelay(this::heartbeatIfOverdue, check, check, TimeUnit.MILLISECONDS);
    }

    /** Sends another heartbeat when the last one has been unanswered for a whole interval. */
    private void heartbeatIfOverdue() {
        if (outstanding > 0 && outstanding < MAX_OUTSTANDING && time.hiResMilliseconds() - lastSentMs >= heartbeatIntervalMs) {
            heartbeat();
        }
    }

    public State state() {
        return state;
    }

    /** The epoch of the current registration, -1 before the first one commits. */
    public long brokerEpoch() {
        return brokerEpoch;
    }

    public boolean isFenced() {
        return state != State.ACTIVE;
    }

    public String incarnationId() {
        return incarnationId;
    }

    /** Completes the first time the controller unfences this broker. */
    public CompletableFuture<Void> unfenced() {
        return unfenced;
    }

    /**
     * Asks the controller to move this broker's leaderships away (heartbeats carry want_shutdown from now on) and
     * completes when it says the broker may stop. The caller then closes its servers, then this manager.
     */
    public CompletableFuture<Void> controlledShutdown() {
        wantShutdown = true;
        if (state == State.UNREGISTERED) {
            shutdownDone.complete(null);
        } else {
            state = State.SHUTTING_DOWN;
            thread.execute(this::heartbeat);
        }
        return shutdownDone;
    }

    /**
     * What every heartbeat reports about storage: the offline log dirs and every replica in them (the full set each
     * time; the controller keeps those replicas out of ISRs and leaderships while they are reported).
     */
    public void setOfflineStorage(Supplier<List<String>> dirs, Supplier<List<OfflineReplica>> replicas) {
        this.offlineLogDirs = dirs;
        this.offlineReplicas = replicas;
    }

    /**
     * Sends a heartbeat now instead of at the next interval (a log dir just went offline). Never starts a second
     * heartbeat chain: only the newest heartbeat's answer schedules the next one.
     */
    public void heartbeatNow() {
        try {
            thread.execute(() -> {
                ScheduledFuture<?> next = nextHeartbeat;
                if ((next != null && next.cancel(false)) || (outstanding > 0 && outstanding < MAX_OUTSTANDING)) {
                    heartbeat();
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // Closed.
        }
    }

    private void register() {
        if (closed || wantShutdown) {
            return;
        }
        RegisterBrokerRequest req = RegisterBrokerRequest.newBuilder().setClusterId(clusterId).setBrokerId(brokerId)
            .setIncarnationId(incarnationId).addAllEndpoints(endpoints).setRack(rack)
            .setMaxSupportedMetadataVersion(MetadataImage.LATEST_METADATA_VERSION).build();
        channel.registerBroker(req, Math.max(2000, heartbeatIntervalMs * 8)).whenCompleteAsync((resp, err) -> {
            if (err != null || resp.getError().getCode() != ErrorCode.NONE) {
                LOG.warn("broker {} registration failed: {}", brokerId, err != null ? err.toString() : resp.getError());
                schedule(this::register, heartbeatIntervalMs);
                return;
            }
            lastAnsweredMs = time.hiResMilliseconds();
            brokerEpoch = resp.getBrokerEpoch();
            state = State.FENCED;
            LOG.info("broker {} registered with epoch {} (incarnation {})", brokerId, brokerEpoch, incarnationId);
            heartbeat();
        }, thread);
    }

    private void heartbeat() {
        if (closed || state == State.UNREGISTERED || state == State.STOPPED) {
            return;
        }
        BrokerHeartbeatRequest req = BrokerHeartbeatRequest.newBuilder().setBrokerId(brokerId).setBrokerEpoch(brokerEpoch)
            .setMetadataOffset(follower.currentImage().index()).setWantShutdown(wantShutdown)
            .addAllOfflineLogDirs(offlineLogDirs.get()).addAllOfflineReplicas(offlineReplicas.get()).build();
        long sentEpoch = brokerEpoch;
        long seq = ++sentSeq;
        lastSentMs = time.hiResMilliseconds();
        outstanding++;
        channel.brokerHeartbeat(req, Math.max(1000, heartbeatIntervalMs * 4)).whenCompleteAsync((resp, err) -> {
            outstanding--;
            if (brokerEpoch != sentEpoch || state == State.STOPPED || seq < answeredSeq) {
                return;
            }
            answeredSeq = seq;
            if (err != null) {
                LOG.debug("broker {} heartbeat failed: {}", brokerId, err.toString());
            } else {
                lastAnsweredMs = time.hiResMilliseconds();
                onHeartbeat(resp);
            }
            // Only the newest heartbeat's answer schedules the next one (an overdue one may have been sent meanwhile).
            if (seq == sentSeq && state != State.UNREGISTERED && state != State.STOPPED) {
                nextHeartbeat = schedule(this::heartbeat, heartbeatIntervalMs);
            }
        }, thread);
    }

    private void onHeartbeat(BrokerHeartbeatResponse resp) {
        ErrorCode code = resp.getError().getCode();
        if (code == ErrorCode.STALE_BROKER_EPOCH || code == ErrorCode.BROKER_ID_NOT_REGISTERED) {
            LOG.warn("broker {}: {}; registering again", brokerId, resp.getError().getMessage());
            state = State.UNREGISTERED;
            brokerEpoch = -1;
            schedule(this::register, 0);
            return;
        }
        if (code != ErrorCode.NONE) {
            LOG.debug("broker {} heartbeat refused: {}", brokerId, resp.getError());
            return;
        }
        if (wantShutdown) {
            if (resp.getShouldShutDown()) {
                state = State.STOPPED;
                shutdownDone.complete(null);
            }
            return;
        }
        if (resp.getIsFenced()) {
            state = State.FENCED;
        } else {
            state = State.ACTIVE;
            unfenced.complete(null);
        }
    }

    /**
     * Milliseconds since the active controller last answered this broker (a heartbeat or the registration), or
     * {@code Long.MAX_VALUE} before the first answer. Past {@code broker.session.timeout.ms} the controller may have
     * fenced this broker and moved its leaderships without it knowing.
     */
    public long msSinceControllerAnswer() {
        long last = lastAnsweredMs;
        return last == Long.MIN_VALUE ? Long.MAX_VALUE : time.hiResMilliseconds() - last;
    }

    private ScheduledFuture<?> schedule(Runnable r, long delayMs) {
        try {
            return thread.schedule(r, delayMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return null; // Closed.
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
    }
}
