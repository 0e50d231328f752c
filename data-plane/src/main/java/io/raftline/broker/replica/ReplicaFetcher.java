package io.raftline.broker.replica;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.ChannelOption;
import io.raftline.broker.log.Log;
import io.raftline.common.Time;
import io.raftline.grpc.AliasingMarshaller;
import io.raftline.grpc.TransportAllocator;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import io.raftline.protocol.metadata.Endpoint;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches every partition this broker follows on one leader, over one long-lived Fetch stream, one request in
 * flight at a time. Each response is applied in order: records appended at the leader's offsets, the leader's
 * high watermark taken, a divergence truncated (the leader names the epoch and where it ends; this replica cuts
 * its log to the smaller of that and its own end of that epoch, then fetches again), a log that starts later on
 * the leader restarted there.
 */
final class ReplicaFetcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFetcher.class);
    private static final MethodDescriptor<FetchRequest, FetchResponse> FETCH_METHOD =
        AliasingMarshaller.aliasingResponses(BrokerServiceGrpc.getFetchMethod(), FetchResponse.getDefaultInstance());

    private record Fetched(int leaderEpoch, Partition partition) {
    }

    private final int brokerId;
    private final LongSupplier brokerEpoch;
    private final int leaderId;
    private final Endpoint endpoint;
    private final ReplicaFetcherManager.Settings settings;
    /** Read for the pauses after an error ({@link Time#nanoseconds}); the waits themselves are real. */
    private final Time time;
    /** The follower replication throttle: out-of-sync throttled replicas fetch within it. */
    private final ReplicationQuotas quotas;
    private final Map<TopicPartition, Fetched> partitions = new ConcurrentHashMap<>();
    /** Partitions paused after an error until the metadata moves them (by removing and re-adding). */
    private final Map<TopicPartition, Long> pausedUntilNs = new ConcurrentHashMap<>();
    private final AtomicLong correlation = new AtomicLong();
    /** This fetcher's session with the leader; only the fetch thread. */
    private final io.raftline.fetchsession.FetchSessionBuilder session = new io.raftline.fetchsession.FetchSessionBuilder();
    private final Thread thread;
    private final ManagedChannel channel;
    /** Opened by {@link #close()}: ends every pause of the fetch thread at once. */
    private final CountDownLatch closed = new CountDownLatch(1);
    /** Where the current stream's responses arrive; {@link #close()} drops a wake-up into it. */
    private volatile LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    private volatile ReplicaManager.ReplicatedListener replicated = (topic, bytes, records) -> { };

    /** @param brokerEpoch this broker's registered epoch, sent with every fetch (the leader checks it, KIP-903) */
    ReplicaFetcher(int brokerId, LongSupplier brokerEpoch, int leaderId, Endpoint endpoint, ReplicaFetcherManager.Settings settings,
                   Time time, ReplicationQuotas quotas) {
        this.brokerId = brokerId;
        this.quotas = quotas;
        this.brokerEpoch = brokerEpoch;
        this.leaderId = leaderId;
        this.endpoint = endpoint;
        this.settings = settings;
        this.time = time;
        this.channel = settings.security().secure(NettyChannelBuilder.forAddress(endpoint.getHost(), endpoint.getPort()))
            .maxInboundMessageSize(Math.max(settings.maxBytes(), settings.maxBytesPerPartition()) + (4 << 20))
            .flowControlWindow(8 << 20)
            .withOption(ChannelOption.ALLOCATOR, TransportAllocator.channel())
            .build();
        this.thread = new Thread(this::run, "replica-fetcher-" + brokerId + "-from-" + leaderId);
        this.thread.setDaemon(true);
    }

    /** Where what this fetcher appends is counted; set before {@link #start()}. */
    void onReplicated(ReplicaManager.ReplicatedListener listener) {
        this.replicated = listener;
    }

    void start() {
        thread.start();
    }

    boolean endpointMatches(Endpoint other) {
        return endpoint.getHost().equals(other.getHost()) && endpoint.getPort() == other.getPort();
    }

    void addPartition(TopicPartition tp, int leaderEpoch, Partition partition) {
        pausedUntilNs.remove(tp);
        partitions.put(tp, new Fetched(leaderEpoch, partition));
    }

    void removePartition(TopicPartition tp) {
        partitions.remove(tp);
        pausedUntilNs.remove(tp);
    }

    boolean isIdle() {
        return partitions.isEmpty();
    }

    private void run() {
        while (running()) {
            LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
            this.inbox = inbox;
            if (!running()) {
                return;
            }
            StreamObserver<FetchResponse> responses = new StreamObserver<>() {
                @Override
                public void onNext(FetchResponse value) {
                    inbox.add(value);
                }

                @Override
                public void onError(Throwable t) {
                    inbox.add(t);
                }

                @Override
                public void onCompleted() {
                    inbox.add(new IllegalStateException("the leader closed the fetch stream"));
                }
            };
            // Responses parsed in place: the fetched batches alias the received message (one copy fewer per byte).
            StreamObserver<FetchRequest> requests = ClientCalls.asyncBidiStreamingCall(channel.newCall(FETCH_METHOD, CallOptions.DEFAULT),
                responses);
            try {
                fetchLoop(requests, inbox);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                if (running()) {
                    LOG.debug("fetch from broker {} failed: {}", leaderId, e.toString());
                }
            } finally {
                try {
                    requests.onCompleted();
                } catch (RuntimeException ignored) {
                    // the stream is already broken
                }
            }
            if (running()) {
                try {
                    pause(settings.backoffMs());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /**
     * Fetches on one stream until it breaks, in a fetch session with the leader (KIP-227): each request goes out with
     * only what changed since the last one, and is applied against the whole request, which the leader's session
     * holds. A new stream starts over with a full fetch.
     */
    private void fetchLoop(StreamObserver<FetchRequest> requests, LinkedBlockingQueue<Object> inbox)
        throws InterruptedException {
        session.startOver();
        while (running()) {
            FetchRequest request = buildRequest();
            if (request.getPartitionsCount() == 0) {
                pause(20);
                continue;
            }
            requests.onNext(session.toWire(request));
            Object reply = inbox.poll(settings.maxWaitMs() + settings.requestTimeoutMs(), TimeUnit.MILLISECONDS);
            if (reply == null) {
                throw new IllegalStateException("no fetch response from broker " + leaderId + " in time");
            }
            if (reply instanceof Throwable t) {
                throw new IllegalStateException(t);
            }
            if (!running()) {
                return;
            }
            session.onResponse((FetchResponse) reply);
            apply(request, (FetchResponse) reply);
        }
    }

    /**
     * The next request: every partition not paused, from its log end offset. A partition under the follower
     * throttle is left out while the throttle is in debt, and asks for no more than its allowance otherwise.
     */
    FetchRequest buildRequest() {
        FetchRequest.Builder b = FetchRequest.newBuilder()
            .setCorrelationId(correlation.incrementAndGet())
            .setReplicaId(brokerId)
            .setReplicaEpoch(brokerEpoch.getAsLong())
            .setMaxWaitMs(settings.maxWaitMs())
            .setMinBytes(settings.minBytes())
            .setMaxBytes(settings.maxBytes());
        long now = time.nanoseconds();
        for (Map.Entry<TopicPartition, Fetched> e : partitions.entrySet()) {
            Long paused = pausedUntilNs.get(e.getKey());
            if (paused != null && paused - now > 0) {
                continue;
            }
            Log log = e.getValue().partition().log();
            if (log == null) {
                continue;
            }
            int maxBytes = settings.maxBytesPerPartition();
            if (throttled(e.getKey(), e.getValue().partition())) {
                long allowance = quotas.followerAllowance();
                if (allowance <= 0) {
                    continue;
                }
                maxBytes = (int) Math.min(maxBytes, allowance);
            }
            b.addPartitions(FetchRequest.FetchPartition.newBuilder()
                .setTopic(e.getKey().topic())
                .setPartition(e.getKey().partition())
                .setFetchOffset(log.logEndOffset())
                .setCurrentLeaderEpoch(e.getValue().leaderEpoch())
                .setLastFetchedEpoch(log.latestEpoch())
                .setLogStartOffset(log.logStartOffset())
                .setPartitionMaxBytes(maxBytes));
        }
        return b.build();
    }

    /**
     * Applies the response to {@code request} (on the fetch thread; tests call it directly). A partition's answer is
     * applied only if the partition is still fetched at the leader epoch and from the log end offset the request
     * asked with; otherwise it is dropped, and the next request asks again from the current state. While a request is
     * in flight the partition may have moved to another leader's fetcher, been changed by it, and come back here at a
     * new epoch: the answer then describes another log than the one it would be applied to.
     */
    void apply(FetchRequest request, FetchResponse response) {
        Map<TopicPartition, FetchRequest.FetchPartition> asked = new HashMap<>();
        for (FetchRequest.FetchPartition fp : request.getPartitionsList()) {
            asked.put(new TopicPartition(fp.getTopic(), fp.getPartition()), fp);
        }
        for (FetchResponse.PartitionData data : response.getPartitionsList()) {
            TopicPartition tp = new TopicPartition(data.getTopic(), data.getPartition());
            Fetched fetched = partitions.get(tp);
            FetchRequest.FetchPartition sent = asked.get(tp);
            if (fetched == null || sent == null) {
                continue;
            }
            Partition partition = fetched.partition();
            Log log = partition.log();
            if (log == null || !answersCurrentState(sent, fetched.leaderEpoch(), log.logEndOffset())) {
                LOG.debug("{}: dropping a fetch answer from broker {} for epoch {} offset {}: now epoch {} log end {}", tp,
                    leaderId, sent.getCurrentLeaderEpoch(), sent.getFetchOffset(), fetched.leaderEpoch(),
                    log == null ? -1 : log.logEndOffset());
                continue;
            }
            int epoch = fetched.leaderEpoch();
            ErrorCode code = data.getError().getCode();
            try {
                if (code == ErrorCode.NONE && data.hasDivergingEpoch()) {
                    truncateOnDivergence(tp, partition, data.getDivergingEpoch().getEpoch(),
                        data.getDivergingEpoch().getEndOffset(), epoch);
                } else if (code == ErrorCode.NONE) {
                    ByteBuffer records = data.getRecords().asReadOnlyByteBuffer();
                    boolean throttled = throttled(tp, partition);
                    int bytes = records.remaining();
                    long appended = partition.appendAsFollower(records, sent.getFetchOffset(), data.getHighWatermark(),
                        data.getLogStartOffset(), epoch);
                    if (appended > 0) {
                        replicated.onReplicated(tp.topic(), bytes, appended);
                    }
                    if (throttled) {
                        quotas.recordFollower(data.getRecords().size());
                    }
                } else if (code == ErrorCode.OFFSET_OUT_OF_RANGE) {
                    handleOutOfRange(tp, partition, data, epoch);
                } else {
                    // NOT_LEADER, FENCED/UNKNOWN_LEADER_EPOCH, ...: the metadata will tell us what changed.
                    LOG.debug("{}: fetch from broker {} answered {}: {}", tp, leaderId, code, data.getError().getMessage());
                    pauseAfterError(tp);
                }
            } catch (RuntimeException e) {
                LOG.warn("{}: applying a fetch from broker {} failed", tp, leaderId, e);
                pauseAfterError(tp);
            }
        }
    }

    private boolean throttled(TopicPartition tp, Partition partition) {
        return quotas.followerThrottles(tp, partition.isr().contains(brokerId));
    }

    /** Whether an answer to {@code sent} applies to a partition now fetched at {@code leaderEpoch} from {@code logEnd}. */
    static boolean answersCurrentState(FetchRequest.FetchPartition sent, int leaderEpoch, long logEnd) {
        return FollowerDecisions.answersCurrentState(sent.getCurrentLeaderEpoch(), sent.getFetchOffset(), leaderEpoch, logEnd);
    }

    /** Leaves {@code tp} out of the requests for {@code replica.fetch.backoff.ms}. */
    private void pauseAfterError(TopicPartition tp) {
        pausedUntilNs.put(tp, time.nanoseconds() + TimeUnit.MILLISECONDS.toNanos(settings.backoffMs()));
    }

    private void truncateOnDivergence(TopicPartition tp, Partition partition, int divergingEpoch, long leaderEnd,
                                      int expectedEpoch) {
        Log log = partition.log();
        long target = FollowerDecisions.divergenceTruncationOffset(leaderEnd, log.endOffsetForEpoch(divergingEpoch),
            log.logStartOffset());
        LOG.info("{}: log diverged from leader {} at epoch {}: truncating from {} to {}", tp, leaderId, divergingEpoch,
            log.logEndOffset(), target);
        partition.truncateTo(target, expectedEpoch);
    }

    private void handleOutOfRange(TopicPartition tp, Partition partition, FetchResponse.PartitionData data, int epoch) {
        Log log = partition.log();
        FollowerDecisions.OutOfRange action = FollowerDecisions.onOutOfRange(data.getLogStartOffset(), data.getLogEndOffset(),
            log.logEndOffset());
        if (action instanceof FollowerDecisions.OutOfRange.StartOver start) {
            LOG.info("{}: leader {} starts its log at {}, past this replica's end {}: starting over there", tp, leaderId,
                start.offset(), log.logEndOffset());
            partition.truncateFullyAndStartAt(start.offset(), epoch);
        } else if (action instanceof FollowerDecisions.OutOfRange.TruncateTo truncate) {
            LOG.info("{}: this replica's log end {} is past leader {}'s end {}: truncating", tp, log.logEndOffset(),
                leaderId, truncate.offset());
            partition.truncateTo(truncate.offset(), epoch);
        }
    }

    List<TopicPartition> partitionsFollowed() {
        return List.copyOf(partitions.keySet());
    }

    private boolean running() {
        return closed.getCount() > 0;
    }

    /** Waits {@code ms}, or less once closed. */
    private void pause(long ms) throws InterruptedException {
        closed.await(ms, TimeUnit.MILLISECONDS);
    }

    /**
     * Stops the fetch thread without interrupting it: an interrupt during a log append closes the segment's file
     * channel ({@code ClosedByInterruptException}) and takes the whole log dir offline. The thread finishes the
     * response it is applying, sees it is closed, and ends; its waits are woken here instead.
     */
    @Override
    public void close() {
        closed.countDown();
        inbox.add(new IllegalStateException("the fetcher from broker " + leaderId + " is closed"));
        channel.shutdownNow();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("the fetcher from broker {} is still applying a response after 5 s; leaving it to finish", leaderId);
        }
    }
}
