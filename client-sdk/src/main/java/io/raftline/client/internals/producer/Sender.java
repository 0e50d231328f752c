package io.raftline.client.internals.producer;

import com.google.protobuf.UnsafeByteOperations;
import io.raftline.client.common.Cluster;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.errors.Errors;
import io.raftline.client.errors.InvalidMetadataException;
import io.raftline.client.errors.OutOfOrderSequenceException;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.errors.RetriableException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.errors.UnknownServerException;
import io.raftline.client.internals.metadata.Metadata;
import io.raftline.client.internals.net.BrokerConnection;
import io.raftline.client.internals.net.ConnectionPool;
import io.raftline.client.internals.net.GrpcErrors;
import io.raftline.common.Time;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.InitProducerIdRequest;
import io.raftline.protocol.broker.InitProducerIdResponse;
import io.raftline.protocol.broker.ProduceRequest;
import io.raftline.protocol.broker.ProduceResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer's I/O thread. Each pass: handle the responses that arrived, get a producer id if idempotent, refresh
 * metadata when due, send one request per ready broker (no more than {@code max.in.flight.requests.per.connection}
 * unanswered per broker), fail batches past {@code delivery.timeout.ms}, then sleep until the next batch can be
 * ready or something wakes it. All batch state changes after append happen on this thread: gRPC callbacks only
 * queue what they received.
 */
public final class Sender implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(Sender.class);

    /** The producer settings the sender needs. */
    public record Settings(short acks, int maxRequestSize, int maxInFlightPerConnection, int retries, long retryBackoffMs,
                           int requestTimeoutMs, int deliveryTimeoutMs) {
    }

    private record Completion(int nodeId, Map<TopicPartition, ProducerBatch> batches, ProduceResponse response, Throwable error) {
    }

    private final Settings settings;
    private final Metadata metadata;
    private final ConnectionPool pool;
    private final RecordAccumulator accumulator;
    private final IdempotenceState idempotence;
    private final Time time;
    private final ProducerMetrics metrics;
    private final ConcurrentLinkedQueue<Completion> completions = new ConcurrentLinkedQueue<>();
    private final Map<Integer, Integer> inFlightPerNode = new HashMap<>();
    private final Object wakeLock = new Object();
    private boolean woken;
    private volatile boolean running = true;
    private volatile boolean forceClose;
    private boolean initInFlight;
    private long nextInitAttemptMs;
    private String lastInitError = "";
    private final ConcurrentLinkedQueue<InitResult> initResults = new ConcurrentLinkedQueue<>();

    /** Creates the sender; {@code idempotence} is null when idempotence is off. */
    public Sender(Settings settings, Metadata metadata, ConnectionPool pool, RecordAccumulator accumulator, IdempotenceState idempotence,
                  Time time, ProducerMetrics metrics) {
        this.settings = settings;
        this.metadata = metadata;
        this.pool = pool;
        this.accumulator = accumulator;
        this.idempotence = idempotence;
        this.time = time;
        this.metrics = metrics;
    }

    @Override
    public void run() {
        while (running) {
            runOnceSafely();
        }
        // Graceful close: send what is queued and wait for what is in flight.
        while (!forceClose && (accumulator.hasIncomplete() || accumulator.hasAppendsInProgress())) {
            runOnceSafely();
        }
        if (forceClose) {
            accumulator.abortIncompleteBatches(new IllegalStateException("Producer is closed forcefully."));
        }
    }

    private void runOnceSafely() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            LOG.error("Uncaught error in the producer I/O thread", e);
        }
    }

    /** Starts a graceful close: the loop ends once everything queued is done. */
    public void initiateClose() {
        running = false;
        wakeup();
    }

    /** Ends the loop at once; incomplete batches fail. */
    public void forceClose() {
        forceClose = true;
        running = false;
        wakeup();
    }

    /** Wakes the loop: a batch became ready, a response arrived, a flush or close began. */
    public void wakeup() {
        synchronized (wakeLock) {
            woken = true;
            wakeLock.notifyAll();
        }
    }

    /** One pass of the loop. */
    void runOnce() {
        long now = time.hiResMilliseconds();
        processCompletions(now);
        processInitResults(now);
        if (idempotence != null && !idempotence.hasProducerId()) {
            maybeInitProducerId(now);
        }
        metadata.maybeRefresh();
        Cluster cluster = metadata.cluster();
        RecordAccumulator.ReadyResult ready = accumulator.ready(cluster, now);
        if (!ready.unknownLeaderTopics().isEmpty()) {
            metadata.addTopics(ready.unknownLeaderTopics());
            metadata.requestUpdate();
        }
        Set<Node> sendable = new java.util.HashSet<>(ready.readyNodes());
        sendable.removeIf(n -> inFlightPerNode.getOrDefault(n.id(), 0) >= settings.maxInFlightPerConnection());
        RecordAccumulator.DrainGate gate = idempotence != null ? idempotence : RecordAccumulator.OPEN_GATE;
        Map<Integer, List<ProducerBatch>> drained = accumulator.drain(cluster, sendable, settings.maxRequestSize(), gate, now);
        drained.forEach((nodeId, batches) -> send(cluster.nodeById(nodeId), batches));
        for (ProducerBatch b : accumulator.expiredBatches(settings.deliveryTimeoutMs(), now)) {
            fail(b, new TimeoutException("Expiring " + b.recordCount() + " record(s) for " + b.tp + ": "
                + (now - b.createdMs) + " ms has passed since batch creation (delivery.timeout.ms)"
                + (lastInitError.isEmpty() ? "" : "; last InitProducerId error: " + lastInitError)));
        }
        long waitMs = Math.min(ready.nextReadyCheckDelayMs(), settings.retryBackoffMs());
        if (!drained.isEmpty()) {
            waitMs = 0;
        }
        await(Math.min(waitMs, 100));
    }

    private void await(long ms) {
        if (ms <= 0) {
            return;
        }
        synchronized (wakeLock) {
            if (!woken && completions.isEmpty() && initResults.isEmpty() && running) {
                try {
                    wakeLock.wait(ms);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            woken = false;
        }
    }

    private void send(Node node, List<ProducerBatch> batches) {
        ProduceRequest.Builder request = ProduceRequest.newBuilder().setAcks(settings.acks()).setTimeoutMs(settings.requestTimeoutMs());
        Map<TopicPartition, ProducerBatch> byTp = new HashMap<>();
        for (ProducerBatch b : batches) {
            request.addPartitions(ProduceRequest.PartitionData.newBuilder().setTopic(b.tp.topic()).setPartition(b.tp.partition())
                .setRecords(UnsafeByteOperations.unsafeWrap(b.close())));
            byTp.put(b.tp, b);
            metrics.batchSent(b.sizeInBytes(), b.recordCount());
        }
        BrokerConnection conn = pool.get(node);
        if (settings.acks() == 0) {
            try {
                conn.produceOneWay(request);
                for (ProducerBatch b : batches) {
                    succeed(b, -1, -1);
                }
            } catch (RuntimeException e) {
                completions.add(new Completion(node.id(), byTp, null, e));
            }
            return;
        }
        inFlightPerNode.merge(node.id(), 1, Integer::sum);
        conn.produce(request, settings.requestTimeoutMs()).whenComplete((response, error) -> {
            completions.add(new Completion(node.id(), byTp, response, error));
            wakeup();
        });
    }

    private void processCompletions(long now) {
        Completion c;
        while ((c = completions.poll()) != null) {
            inFlightPerNode.merge(c.nodeId(), -1, Integer::sum);
            if (c.error() != null) {
                RaftlineException e = GrpcErrors.toException(c.error(), "broker " + c.nodeId());
                metadata.requestUpdate();
                for (ProducerBatch b : c.batches().values()) {
                    handleError(b, e, now);
                }
                continue;
            }
            for (ProduceResponse.PartitionResult r : c.response().getPartitionsList()) {
                ProducerBatch b = c.batches().remove(new TopicPartition(r.getTopic(), r.getPartition()));
                if (b == null) {
                    continue;
                }
                ErrorCode code = r.getError().getCode();
                if (code == ErrorCode.NONE || code == ErrorCode.DUPLICATE_SEQUENCE) {
                    if (b.attempts == 1) {
                        // Only a first attempt: an earlier one may still sit in a connecting channel holding the array.
                        b.answeredByBroker();
                    }
                    succeed(b, r.getBaseOffset(), r.getLogAppendTimeMs());
                    continue;
                }
                if (Errors.isInvalidMetadata(code)) {
                    metadata.applyLeaderHint(b.tp, r.hasCurrentLeader() ? r.getCurrentLeader() : null);
                }
                handleError(b, Errors.toException(r.getError()), now);
            }
            for (ProducerBatch missing : c.batches().values()) {
                handleError(missing, new UnknownServerException("The broker's produce response left out " + missing.tp), now);
            }
        }
    }

    private void handleError(ProducerBatch b, RaftlineException e, long now) {
        if (idempotence != null) {
            idempotence.onReturned(b);
        }
        boolean retriable = e instanceof RetriableException;
        if (e instanceof OutOfOrderSequenceException && idempotence != null) {
            // explained by an earlier batch still to be stored: retry as it is; else the leader never stored this
            // sequence: retry under a new one (bumping the epoch if the gap is in the current one), as Kafka does
            if (!idempotence.earlierSequencePending(b, accumulator.queuedBatches(b.tp))) {
                idempotence.sequenceRefused(b);
            }
            retriable = true;
        }
        if (e instanceof InvalidMetadataException) {
            metadata.requestUpdate();
        }
        boolean withinDeadline = now - b.createdMs < settings.deliveryTimeoutMs();
        if (retriable && b.attempts <= settings.retries() && withinDeadline && !accumulatorClosedForcefully()) {
            LOG.debug("Retrying {} after {}", b, e.getMessage());
            metrics.retry();
            accumulator.reenqueue(b, now);
            return;
        }
        RaftlineException finalError = retriable && !withinDeadline
            ? new TimeoutException("Delivery of " + b.tp + " timed out after " + (now - b.createdMs) + " ms; last error: "
                + e.getMessage(), e)
            : e;
        fail(b, finalError);
    }

    private boolean accumulatorClosedForcefully() {
        return forceClose;
    }

    private void succeed(ProducerBatch b, long baseOffset, long logAppendTimeMs) {
        if (idempotence != null) {
            idempotence.onReturned(b);
        }
        b.inFlight = false;
        b.complete(baseOffset, logAppendTimeMs, null, () -> metrics.recordsSent(b.recordCount()));
        accumulator.deallocate(b);
    }

    private void fail(ProducerBatch b, RuntimeException error) {
        if (idempotence != null && b.hasSequence()) {
            // The broker will never see this sequence: later batches would hit a gap. Start a new epoch.
            idempotence.requestEpochBump();
        }
        b.inFlight = false;
        b.complete(-1, -1, error, () -> metrics.recordErrors(b.recordCount()));
        accumulator.deallocate(b);
    }

    private void maybeInitProducerId(long now) {
        if (initInFlight || now < nextInitAttemptMs || !idempotence.nothingInFlight()) {
            return;
        }
        boolean bump = idempotence.epochBumpNeeded() && idempotence.producerId() >= 0;
        InitProducerIdRequest request = InitProducerIdRequest.newBuilder()
            .setProducerId(bump ? idempotence.producerId() : -1)
            .setProducerEpoch(bump ? idempotence.epoch() : -1)
            .build();
        Node node = metadata.pickNode();
        initInFlight = true;
        pool.get(node).<InitProducerIdResponse>unary((s, o) -> s.initProducerId(request, o), settings.requestTimeoutMs())
            .whenComplete((response, error) -> {
                initResults.add(new InitResult(response, error));
                wakeup();
            });
    }

    private void processInitResults(long now) {
        InitResult r;
        while ((r = initResults.poll()) != null) {
            initInFlight = false;
            String error = null;
            if (r.error() != null) {
                error = GrpcErrors.toException(r.error(), "InitProducerId").getMessage();
                metadata.nodeFailed();
            } else if (r.response().getError().getCode() != ErrorCode.NONE) {
                io.raftline.client.errors.ApiException e = Errors.toException(r.response().getError());
                error = e.getMessage();
                if (e instanceof io.raftline.client.errors.AuthorizationException) {
                    // retrying will not help until an ACL changes: what waits fails now, as Kafka's producer does
                    for (ProducerBatch b : accumulator.expiredBatches(0, now)) {
                        fail(b, e);
                    }
                }
            }
            if (error != null) {
                lastInitError = error;
                nextInitAttemptMs = now + settings.retryBackoffMs();
                LOG.debug("InitProducerId failed: {}", error);
                continue;
            }
            // Queued batches keep the old epoch's sequences: each was sent and may be stored (see IdempotenceState).
            idempotence.setProducerIdAndEpoch(r.response().getProducerId(), (short) r.response().getProducerEpoch());
            lastInitError = "";
        }
    }

    private record InitResult(InitProducerIdResponse response, Throwable error) {
    }
}
