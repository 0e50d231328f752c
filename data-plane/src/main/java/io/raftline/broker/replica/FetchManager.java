package io.raftline.broker.replica;

import io.raftline.broker.log.FetchDataInfo;
import io.raftline.protocol.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fetches from leaders, for consumers and followers, with Kafka's long poll: a fetch that finds fewer than
 * {@code min.bytes} waits up to {@code max.wait.ms}, and is answered as soon as an append or a high-watermark
 * move on one of its partitions makes enough data readable. A follower out of the ISR of a replica under the
 * leader replication throttle gets its records within the throttle ({@link ReplicationQuotas}): none while the
 * throttle is in debt, so its fetch waits in the long poll, then at most the allowance (one batch at least).
 */
public final class FetchManager implements AutoCloseable {

    /** One partition of a fetch request; {@code logStartOffset}: a follower's own log start offset (-1: none). */
    public record PartitionFetch(TopicPartition tp, long fetchOffset, int maxBytes, int currentLeaderEpoch,
                                 int lastFetchedEpoch, long logStartOffset) {
        public PartitionFetch(TopicPartition tp, long fetchOffset, int maxBytes, int currentLeaderEpoch, int lastFetchedEpoch) {
            this(tp, fetchOffset, maxBytes, currentLeaderEpoch, lastFetchedEpoch, -1);
        }
    }

    /**
     * A fetch request: {@code replicaId} -1 for consumers, the follower's broker id otherwise, with
     * {@code replicaBrokerEpoch} the epoch that broker registered with (ignored for consumers).
     */
    public record Request(int replicaId, long replicaBrokerEpoch, int maxWaitMs, int minBytes, int maxBytes,
                          List<PartitionFetch> partitions) {
        boolean fromFollower() {
            return replicaId >= 0;
        }

        FetchCheck.Fetch check(PartitionFetch pf) {
            return new FetchCheck.Fetch(replicaId, replicaBrokerEpoch, pf.fetchOffset(), pf.currentLeaderEpoch(),
                pf.lastFetchedEpoch(), pf.logStartOffset());
        }
    }

    /**
     * One partition's answer; {@code leaderId} names the leader this broker knows on NOT_LEADER; {@code throttled}:
     * its bytes count against the leader replication throttle.
     */
    public record PartitionData(TopicPartition tp, Partition.ReadResult result, int leaderId, int leaderEpoch,
                                boolean throttled) {
        PartitionData(TopicPartition tp, Partition.ReadResult result, int leaderId, int leaderEpoch) {
            this(tp, result, leaderId, leaderEpoch, false);
        }
    }

    private final ReplicaManager replicaManager;
    private final ScheduledExecutorService scheduler;
    /** The leader replication throttle: followers out of the ISR of throttled replicas get records within it. */
    private final ReplicationQuotas quotas;
    /** Where parked fetches look again: one thread, so a look never runs on the appending or scheduling thread. */
    private final Executor wakeups;
    private final Map<TopicPartition, Set<DelayedFetch>> waiting = new ConcurrentHashMap<>();
    /** Long polls parked now, by who asked (index 0 consumers, 1 followers): the fetch purgatory's size. */
    private final AtomicInteger[] parked = {new AtomicInteger(), new AtomicInteger()};

    FetchManager(ReplicaManager replicaManager, ScheduledExecutorService scheduler, ReplicationQuotas quotas) {
        this(replicaManager, scheduler, quotas, Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fetch-wakeup");
            t.setDaemon(true);
            return t;
        }));
    }

    /** With the executor parked fetches look again on (tests: one that runs what it is given when told). */
    FetchManager(ReplicaManager replicaManager, ScheduledExecutorService scheduler, ReplicationQuotas quotas,
                 Executor wakeups) {
        this.replicaManager = replicaManager;
        this.scheduler = scheduler;
        this.quotas = quotas;
        this.wakeups = wakeups;
    }

    /** Answers now when enough is readable, else when it becomes so or {@code maxWaitMs} passes. */
    public CompletableFuture<List<PartitionData>> fetch(Request request) {
        if (request.fromFollower()) {
            // Before the first read, so that its answer carries the high watermark this fetch moved; the partition
            // takes the offset only from a fetch its read accepts (FetchCheck).
            long registered = replicaManager.registeredBrokerEpoch(request.replicaId());
            for (PartitionFetch pf : request.partitions()) {
                replicaManager.partition(pf.tp()).ifPresent(p -> replicaManager.onFollowerFetch(p, request.check(pf),
                    registered));
            }
        }
        CompletableFuture<List<PartitionData>> future = new CompletableFuture<>();
        DelayedFetch delayed = new DelayedFetch(request, future);
        if (delayed.tryComplete(request.maxWaitMs() <= 0)) {
            return future;
        }
        delayed.park();
        for (PartitionFetch pf : request.partitions()) {
            waiting.computeIfAbsent(pf.tp(), k -> ConcurrentHashMap.newKeySet()).add(delayed);
        }
        // Data may have arrived between the first read and the registration.
        if (delayed.tryComplete(false)) {
            return future;
        }
        delayed.timeout = scheduler.schedule(() -> wakeups.execute(() -> delayed.tryComplete(true)),
            request.maxWaitMs(), TimeUnit.MILLISECONDS);
        // Cancelled by a caller that went away: no longer parked or waited for.
        future.whenComplete((v, e) -> {
            if (future.isCancelled() && delayed.done.compareAndSet(false, true)) {
                delayed.unregister();
            }
        });
        return future;
    }

    /**
     * Fetches parked in a long poll right now, from followers ({@code fromFollowers}) or consumers. A parked
     * fetch has not read its answer yet: once a follower's count is zero, nothing appended later can reach it
     * through a request it already sent.
     */
    public int parkedFetches(boolean fromFollowers) {
        return parked[fromFollowers ? 1 : 0].get();
    }

    /**
     * New data or a new high watermark on {@code tp}: waiting fetches look again, each at most once for a burst of
     * changes (see {@link DelayedFetch#wake}).
     */
    void onDataChange(TopicPartition tp) {
        Set<DelayedFetch> set = waiting.get(tp);
        if (set == null || set.isEmpty()) {
            return;
        }
        for (DelayedFetch delayed : set) {
            delayed.wake();
        }
    }

    List<PartitionData> read(Request request) {
        List<PartitionData> out = new ArrayList<>(request.partitions().size());
        int budget = request.maxBytes() <= 0 ? Integer.MAX_VALUE : request.maxBytes();
        boolean first = true;
        long registered = request.fromFollower() ? replicaManager.registeredBrokerEpoch(request.replicaId()) : -1;
        for (PartitionFetch pf : request.partitions()) {
            Partition partition = replicaManager.partition(pf.tp()).orElse(null);
            if (partition == null) {
                ReplicaManager.ProduceResult why = replicaManager.notHere(pf.tp());
                out.add(new PartitionData(pf.tp(), new Partition.ReadResult(why.error(), why.message(), -1, -1, -1, null,
                    -1, -1), -1, -1));
                continue;
            }
            int maxBytes = Math.min(pf.maxBytes() <= 0 ? Integer.MAX_VALUE : pf.maxBytes(), budget);
            if (maxBytes <= 0 && !first) {
                maxBytes = 0;
            }
            boolean throttled = request.fromFollower()
                && quotas.leaderThrottles(pf.tp(), partition.isr().contains(request.replicaId()));
            long allowance = throttled ? quotas.leaderAllowance() : Long.MAX_VALUE;
            maxBytes = (int) Math.min(maxBytes, allowance);
            Partition.ReadResult result = partition.read(request.check(pf), registered, maxBytes);
            if (throttled && allowance <= 0 && result.data() != null) {
                // over the throttle: the offsets and any divergence, but no records until the debt is paid back
                result = new Partition.ReadResult(result.error(), result.message(), result.highWatermark(),
                    result.logStartOffset(), result.logEndOffset(), FetchDataInfo.empty(pf.fetchOffset()),
                    result.divergingEpoch(), result.divergingEndOffset());
            }
            if (result.data() != null) {
                budget -= result.data().sizeInBytes();
                first = false;
            }
            out.add(new PartitionData(pf.tp(), result, partition.leaderId(), partition.leaderEpoch(), throttled));
        }
        return out;
    }

    /** Counts the bytes of throttled partitions in an answer about to go out against the leader throttle. */
    private void recordThrottled(List<PartitionData> data) {
        long bytes = 0;
        for (PartitionData pd : data) {
            if (pd.throttled() && pd.result().data() != null) {
                bytes += pd.result().data().sizeInBytes();
            }
        }
        if (bytes > 0) {
            quotas.recordLeader(bytes);
        }
    }

    private final class DelayedFetch {
        final Request request;
        final CompletableFuture<List<PartitionData>> future;
        final AtomicBoolean done = new AtomicBoolean();
        volatile ScheduledFuture<?> timeout;
        /** Set (before registration) when the fetch parks; counted in {@link #parked} until it completes. */
        private volatile boolean isParked;
        /** A look at this fetch is queued and has not started: further changes need no other. */
        private final AtomicBoolean lookQueued = new AtomicBoolean();

        DelayedFetch(Request request, CompletableFuture<List<PartitionData>> future) {
            this.request = request;
            this.future = future;
        }

        /** Reads; completes when forced or when the read is enough. Returns true when completed. */
        boolean tryComplete(boolean force) {
            if (done.get()) {
                return true;
            }
            List<PartitionData> data;
            try {
                data = read(request);
            } catch (RuntimeException e) {
                if (done.compareAndSet(false, true)) {
                    unregister();
                    future.completeExceptionally(e);
                }
                return true;
            }
            long bytes = 0;
            boolean interesting = false;
            for (PartitionData pd : data) {
                if (pd.result().data() != null) {
                    bytes += pd.result().data().sizeInBytes();
                }
                if (pd.result().error() != ErrorCode.NONE || pd.result().diverging()) {
                    interesting = true;
                }
            }
            if (force || interesting || bytes >= Math.max(1, request.minBytes())) {
                if (done.compareAndSet(false, true)) {
                    unregister();
                    recordThrottled(data);
                    future.complete(data);
                }
                return true;
            }
            return false;
        }

        /**
         * Queues one look (a read of every partition it asks for), unless one is queued and not started yet. A
         * follower's fetch waits on every partition it follows: an ISR change of all of them (a broker back) is one
         * change per partition, and a look per change made the wake-up thread read N partitions N times, so at
         * 10,000 partitions it fell minutes behind, the fetch's own timeout queued behind those looks, and the
         * follower gave up on its request and fell out of every ISR. A change that comes while a look runs queues the
         * next one (the flag is cleared before the read), so none is missed.
         */
        void wake() {
            if (lookQueued.compareAndSet(false, true)) {
                wakeups.execute(() -> {
                    lookQueued.set(false);
                    tryComplete(false);
                });
            }
        }

        void park() {
            isParked = true;
            parked[request.fromFollower() ? 1 : 0].incrementAndGet();
        }

        /** Runs once, after {@code done} was set. */
        private void unregister() {
            if (isParked) {
                parked[request.fromFollower() ? 1 : 0].decrementAndGet();
            }
            ScheduledFuture<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
            for (PartitionFetch pf : request.partitions()) {
                Set<DelayedFetch> set = waiting.get(pf.tp());
                if (set != null) {
                    set.remove(this);
                }
            }
        }
    }

    @Override
    public void close() {
        if (wakeups instanceof ExecutorService own) {
            own.shutdownNow();
        }
    }
}
