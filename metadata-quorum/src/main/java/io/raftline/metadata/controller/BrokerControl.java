package io.raftline.metadata.controller;

import io.raftline.common.Uuid;
import io.raftline.metadata.image.BrokerRegistration;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.metadata.image.TopicIdPartition;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.AllocateProducerIdsRequest;
import io.raftline.protocol.controller.AllocateProducerIdsResponse;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import io.raftline.protocol.controller.BrokerHeartbeatResponse;
import io.raftline.protocol.controller.OfflineReplica;
import io.raftline.protocol.controller.RegisterBrokerRequest;
import io.raftline.protocol.controller.RegisterBrokerResponse;
import io.raftline.protocol.metadata.BrokerState;
import io.raftline.protocol.metadata.BrokerStateRecord;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.ProducerIdsRecord;
import io.raftline.protocol.metadata.RegisterBrokerRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * Broker registration and liveness. Heartbeats live here, in the active controller's memory, never in the log;
 * only state changes are written. Broker states and their transitions (each one a record):
 *
 * <pre>
 *   (register, new incarnation) -> FENCED
 *   FENCED        -- heartbeat, caught up with the metadata (offset >= its broker epoch) --> ACTIVE
 *   ACTIVE        -- heartbeat asking for controlled shutdown --> SHUTTING_DOWN (leaderships moved away)
 *   ACTIVE, SHUTTING_DOWN -- no heartbeat for broker.session.timeout.ms --> FENCED (leaderships moved, out of ISRs)
 *   ACTIVE, SHUTTING_DOWN -- its connection closed, no heartbeat for the grace after --> FENCED (as above)
 *   FENCED        -- heartbeat with want_fence / want_shutdown --> stays FENCED (may shut down at once)
 * </pre>
 *
 * A controller that has just become active gives every broker one full session timeout from that moment (its
 * predecessor's heartbeat times are gone), but the broker on its predecessor's node only one heartbeat interval (see
 * {@link #activate}). One writer: the controller's event thread.
 */
final class BrokerControl {

    private final ControllerConfig config;
    private final String clusterId;
    private final PartitionControl partitions;
    /** Broker id -> monotonic ms of its last accepted heartbeat (or of registration / controller activation). */
    private final Map<Integer, Long> lastContactMs = new HashMap<>();
    /**
     * Broker id -> {epoch, monotonic ms} of the last heartbeat that arrived, recorded by the RPC thread on arrival
     * (thread-safe), so a heartbeat still queued behind slow writes on the event thread still counts as contact.
     */
    private final Map<Integer, long[]> arrivals = new java.util.concurrent.ConcurrentHashMap<>();
    /**
     * Broker id -> the moment the connection its heartbeats came over closed (thread-safe, recorded by the
     * transport's thread), and how long it then has to heartbeat again. See {@link #connectionClosed} and
     * {@link #activate}.
     */
    private final Map<Integer, Closing> closings = new java.util.concurrent.ConcurrentHashMap<>();

    /** A closed heartbeat connection of broker incarnation {@code epoch} at monotonic {@code atMs}. */
    private record Closing(long epoch, long atMs, long graceMs) {
        Closing shifted(long ms) {
            return new Closing(epoch, atMs + ms, graceMs);
        }
    }
    /** Broker id -> the image index at which its controlled shutdown had moved every leadership away. */
    private final Map<Integer, Long> shutdownReadyIndex = new HashMap<>();
    /** Monotonic ms of the last session check (or of activation). */
    private long lastCheckMs;

    BrokerControl(ControllerConfig config, String clusterId, PartitionControl partitions) {
        this.config = config;
        this.clusterId = clusterId;
        this.partitions = partitions;
    }

    /**
     * Becoming the active controller on node {@code nodeId}: every registered broker gets one session timeout of
     * grace from now, except the broker on the node of the previous active controller, which is treated as if its
     * heartbeat connection had closed now, with one heartbeat interval to heartbeat again
     * ({@link #predecessorGraceMs()}). That broker heartbeated its own node's controller in process, so no connection
     * of its closes when that node dies; and the quorum (with pre-vote) elected a new leader only because a majority
     * had stopped hearing from the old one for an election timeout: its process is dead, frozen or cut off. If it is
     * alive after all, its broker has been retrying its heartbeat across the quorum nodes since its own controller
     * stopped answering (every few tens of milliseconds, see {@code ControllerChannel}), and heartbeats again at once
     * when it applies this controller's ControllerChange record, so it reaches this controller within tens of
     * milliseconds of the activation. Without this rule a killed combined node's broker kept its leaderships and ISR
     * places for the election plus a whole session (the failover-ctrl-3n row: 3.3 s without acks=all acks).
     */
    void activate(MetadataImage image, int nodeId, long nowMs) {
        lastContactMs.clear();
        arrivals.clear();
        closings.clear();
        shutdownReadyIndex.clear();
        partitions.clearOfflineReplicas();
        image.brokers().keySet().forEach(id -> lastContactMs.put(id, nowMs));
        int previous = image.controllerId();
        if (previous != nodeId) {
            image.broker(previous).ifPresent(b -> closings.put(previous, new Closing(b.epoch(), nowMs, predecessorGraceMs())));
        }
        lastCheckMs = nowMs;
    }

    /**
     * The longest gap between two session checks that is still normal: past it, the controller itself was not
     * running (a GC pause, a starved CPU, a slow write ahead of the check) and could not have seen heartbeats.
     */
    long stallThresholdMs() {
        return Math.max(2 * config.brokerHeartbeatIntervalMs(), 4 * config.periodicCheckIntervalMs());
    }

    /** Monotonic ms of the broker's last contact with this controller, or -1 if none. */
    long lastContactMs(int brokerId) {
        return lastContactMs.getOrDefault(brokerId, -1L);
    }

    /** Any thread: monotonic ms when the last heartbeat from {@code brokerId} arrived since activation; -1 if none. */
    long lastArrivalMs(int brokerId) {
        long[] a = arrivals.get(brokerId);
        return a == null ? -1 : a[1];
    }

    /** Any thread: a heartbeat from {@code brokerId} at {@code epoch} arrived at {@code nowMs}. */
    void heartbeatArrived(int brokerId, long epoch, long nowMs) {
        arrivals.put(brokerId, new long[] {epoch, nowMs});
    }

    /**
     * Any thread: the connection over which heartbeats of {@code brokerId} at {@code epoch} arrived closed at
     * {@code nowMs}. A process that dies (kill -9, a crash, an OOM kill) has its sockets closed by its kernel at once,
     * so this is the first sign of its death, long before its session runs out; a live broker whose connection
     * merely broke opens a new one with its next heartbeat. See {@link #connectionGraceMs()}.
     */
    void connectionClosed(int brokerId, long epoch, long nowMs) {
        closings.put(brokerId, new Closing(epoch, nowMs, connectionGraceMs()));
    }

    /**
     * How long a broker whose heartbeat connection closed has to heartbeat again before it is fenced: two heartbeat
     * intervals (a live broker reconnects with its next heartbeat), never more than the session timeout. A broker
     * cut off without its connection closing (a network partition, a powered-off host) still has its full session.
     */
    long connectionGraceMs() {
        return Math.min(2 * config.brokerHeartbeatIntervalMs(), config.brokerSessionTimeoutMs());
    }

    /**
     * How long the broker on the previous active controller's node has, from this controller's activation, to
     * heartbeat it before it is fenced: one heartbeat interval (see {@link #activate}), never more than the session.
     */
    long predecessorGraceMs() {
        return Math.min(config.brokerHeartbeatIntervalMs(), config.brokerSessionTimeoutMs());
    }

    ControllerResult<RegisterBrokerResponse> register(MetadataImage image, RegisterBrokerRequest req, long nowMs) {
        RegisterBrokerResponse.Builder resp = RegisterBrokerResponse.newBuilder().setError(Errors.NONE);
        if (!req.getClusterId().equals(clusterId)) {
            return ControllerResult.answer(resp.setError(Errors.of(ErrorCode.INCONSISTENT_CLUSTER_ID, "broker "
                + req.getBrokerId() + " belongs to cluster '" + req.getClusterId() + "', this is '" + clusterId + "'")).build());
        }
        if (req.getBrokerId() < 0) {
            return ControllerResult.answer(resp.setError(Errors.of(ErrorCode.INVALID_REQUEST, "negative broker id")).build());
        }
        if (req.getIncarnationId().isEmpty()) {
            return ControllerResult.answer(resp.setError(Errors.of(ErrorCode.INVALID_REQUEST, "no incarnation id")).build());
        }
        if (req.getMaxSupportedMetadataVersion() < image.metadataVersion()) {
            return ControllerResult.answer(resp.setError(Errors.of(ErrorCode.UNSUPPORTED_VERSION, "broker "
                + req.getBrokerId() + " supports metadata.version up to " + req.getMaxSupportedMetadataVersion()
                + "; the cluster is at " + image.metadataVersion())).build());
        }
        int id = req.getBrokerId();
        BrokerRegistration existing = image.broker(id).orElse(null);
        lastContactMs.put(id, nowMs);
        shutdownReadyIndex.remove(id);
        partitions.clearOfflineReplicas(id);
        if (existing != null && existing.incarnationId().equals(req.getIncarnationId())) {
            // A retry of a registration that already committed: answer with the epoch it got.
            return ControllerResult.answer(resp.setBrokerEpoch(existing.epoch()).build());
        }
        List<MetadataRecord> records = new ArrayList<>();
        if (existing != null) {
            // The previous incarnation is gone: take it out of every ISR and leadership before it comes back.
            records.addAll(partitions.removeBroker(image, id, "broker " + id + " restarted"));
        }
        records.add(MetadataImage.wrap(MetadataRecord.newBuilder().setRegisterBroker(RegisterBrokerRecord.newBuilder()
            .setBrokerId(id).setIncarnationId(req.getIncarnationId()).addAllEndpoints(req.getEndpointsList())
            .setRack(req.getRack()).setFenced(true).addAllLogDirs(req.getLogDirsList()))));
        return new ControllerResult<>(records, after -> RegisterBrokerResponse.newBuilder().setError(Errors.NONE)
            .setBrokerEpoch(after.broker(id).map(BrokerRegistration::epoch).orElse(-1L)).build());
    }

    ControllerResult<BrokerHeartbeatResponse> heartbeat(MetadataImage image, BrokerHeartbeatRequest req, long nowMs) {
        int id = req.getBrokerId();
        BrokerRegistration b = image.broker(id).orElse(null);
        if (b == null) {
            return ControllerResult.answer(BrokerHeartbeatResponse.newBuilder().setError(Errors.of(
                ErrorCode.BROKER_ID_NOT_REGISTERED, "broker " + id + " is not registered")).setIsFenced(true).build());
        }
        if (b.epoch() != req.getBrokerEpoch()) {
            return ControllerResult.answer(BrokerHeartbeatResponse.newBuilder().setError(Errors.of(
                ErrorCode.STALE_BROKER_EPOCH, "broker " + id + " epoch " + req.getBrokerEpoch() + " is not its current "
                    + b.epoch())).setIsFenced(true).build());
        }
        lastContactMs.put(id, nowMs);
        boolean caughtUp = req.getMetadataOffset() >= b.epoch();
        List<MetadataRecord> offline = partitions.setOfflineReplicas(image, id, offlineReplicas(req));
        if (!offline.isEmpty()) {
            // Replicas in a failed log dir leave their ISRs first, alone in this entry, so that the state change
            // below (if any) is decided on an image that already has them out; the next heartbeat does the rest.
            return new ControllerResult<>(offline, after -> BrokerHeartbeatResponse.newBuilder().setError(Errors.NONE)
                .setIsCaughtUp(caughtUp).setIsFenced(after.broker(id).map(BrokerRegistration::fenced).orElse(true))
                .build());
        }
        List<MetadataRecord> records = new ArrayList<>();
        boolean shouldShutDown = false;
        if (b.state() == BrokerState.FENCED) {
            if (req.getWantShutdown()) {
                shouldShutDown = true;
            } else if (caughtUp && !req.getWantFence()) {
                records.add(stateRecord(b, BrokerState.ACTIVE));
                IntPredicate usable = PartitionControl.activeIn(image).or(r -> r == id);
                records.addAll(partitions.electOffline(image, usable));
            }
        } else if (req.getWantFence()) {
            records.addAll(fence(image, id, "broker " + id + " asked to be fenced"));
        } else if (req.getWantShutdown()) {
            if (b.state() == BrokerState.ACTIVE) {
                records.add(stateRecord(b, BrokerState.SHUTTING_DOWN));
                records.addAll(partitions.removeBroker(image, id, "controlled shutdown of broker " + id));
            } else if (leadsNothing(image, id)) {
                long ready = shutdownReadyIndex.computeIfAbsent(id, k -> image.index());
                shouldShutDown = req.getMetadataOffset() >= ready;
            }
        }
        boolean shutDown = shouldShutDown;
        return new ControllerResult<>(records, after -> BrokerHeartbeatResponse.newBuilder().setError(Errors.NONE)
            .setIsCaughtUp(caughtUp)
            .setIsFenced(after.broker(id).map(BrokerRegistration::fenced).orElse(true))
            .setShouldShutDown(shutDown).build());
    }

    private static Set<TopicIdPartition> offlineReplicas(BrokerHeartbeatRequest req) {
        Set<TopicIdPartition> out = new HashSet<>();
        for (OfflineReplica r : req.getOfflineReplicasList()) {
            if (r.getTopicId().size() == Uuid.SIZE_BYTES) {
                out.add(new TopicIdPartition(Uuid.fromBytes(r.getTopicId().toByteArray()), r.getPartition()));
            }
        }
        return out;
    }

    private static boolean leadsNothing(MetadataImage image, int id) {
        for (TopicImage t : image.topicsById().values()) {
            for (PartitionRegistration p : t.partitions().values()) {
                if (p.leader() == id) {
                    return false;
                }
            }
        }
        return true;
    }

    private static MetadataRecord stateRecord(BrokerRegistration b, BrokerState state) {
        return MetadataImage.wrap(MetadataRecord.newBuilder().setBrokerState(BrokerStateRecord.newBuilder()
            .setBrokerId(b.id()).setBrokerEpoch(b.epoch()).setState(state)));
    }

    List<MetadataRecord> fence(MetadataImage image, int id, String reason) {
        BrokerRegistration b = image.broker(id).orElseThrow();
        List<MetadataRecord> out = new ArrayList<>();
        out.add(stateRecord(b, BrokerState.FENCED));
        out.addAll(partitions.removeBroker(image, id, reason));
        return out;
    }

    /**
     * Fences every unfenced broker whose session expired at {@code nowMs}. Time the controller spent not running
     * (a gap between checks longer than {@link #stallThresholdMs()}) does not count against any broker: their
     * heartbeats may be waiting in sockets and queues that the stalled controller has not read yet, so every
     * broker's last contact moves forward by the stall instead of all of them being fenced at once.
     */
    List<MetadataRecord> fenceExpired(MetadataImage image, long nowMs) {
        long gap = nowMs - lastCheckMs;
        lastCheckMs = nowMs;
        if (gap > stallThresholdMs()) {
            long stall = gap - config.periodicCheckIntervalMs();
            lastContactMs.replaceAll((id, last) -> last + stall);
            closings.replaceAll((id, closed) -> closed.shifted(stall));
        }
        List<MetadataRecord> out = new ArrayList<>();
        for (BrokerRegistration b : image.brokers().values()) {
            long last = lastContactMs.computeIfAbsent(b.id(), k -> nowMs);
            long[] arrived = arrivals.get(b.id());
            if (arrived != null && arrived[0] == b.epoch()) {
                last = Math.max(last, arrived[1]);
            }
            if (b.state() == BrokerState.FENCED) {
                continue;
            }
            if (nowMs - last > config.brokerSessionTimeoutMs()) {
                out.addAll(fence(image, b.id(), "broker " + b.id() + " missed its session ("
                    + (nowMs - last) + " ms without a heartbeat)"));
                // One broker per entry, so each fencing is decided on an image that includes the previous one.
                break;
            }
            Closing closed = closings.get(b.id());
            if (closed != null && closed.epoch() == b.epoch() && last <= closed.atMs() && nowMs - closed.atMs() > closed.graceMs()) {
                out.addAll(fence(image, b.id(), "broker " + b.id() + "'s connection closed " + (nowMs - closed.atMs())
                    + " ms ago and it has not heartbeated since (" + (nowMs - last) + " ms without a heartbeat)"));
                break;
            }
        }
        return out;
    }

    ControllerResult<AllocateProducerIdsResponse> allocateProducerIds(MetadataImage image,
                                                                      AllocateProducerIdsRequest req) {
        BrokerRegistration b = image.broker(req.getBrokerId()).orElse(null);
        if (b == null || b.epoch() != req.getBrokerEpoch()) {
            ErrorCode code = b == null ? ErrorCode.BROKER_ID_NOT_REGISTERED : ErrorCode.STALE_BROKER_EPOCH;
            return ControllerResult.answer(AllocateProducerIdsResponse.newBuilder().setError(Errors.of(code,
                "broker " + req.getBrokerId() + " epoch " + req.getBrokerEpoch() + " is not registered")).build());
        }
        long first = image.nextProducerId();
        int size = config.producerIdBlockSize();
        MetadataRecord r = MetadataImage.wrap(MetadataRecord.newBuilder().setProducerIds(ProducerIdsRecord.newBuilder()
            .setBrokerId(b.id()).setBrokerEpoch(b.epoch()).setNextProducerId(first + size)));
        return ControllerResult.of(List.of(r), AllocateProducerIdsResponse.newBuilder().setError(Errors.NONE)
            .setFirstProducerId(first).setBlockSize(size).build());
    }
}
