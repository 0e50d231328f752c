package io.raftline.client.internals.producer;

import io.raftline.client.common.Cluster;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.errors.RecordTooLargeException;
import io.raftline.client.producer.Callback;
import io.raftline.client.producer.RecordMetadata;
import io.raftline.record.CompressionType;
import io.raftline.record.Header;
import io.raftline.record.RecordBatch;
import io.raftline.record.RecordBatchBuilder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Per-partition queues of batches between {@code send} and the sender thread. Application threads append to the
 * last batch of a partition's deque (creating one, with memory from the {@link BufferPool}, when it is full); the
 * sender asks which brokers have a batch ready ({@link #ready}) and takes batches off the front ({@link #drain}).
 *
 * <p>A partition's batch is ready when it is full (or not the only one in the deque), when it has waited
 * {@code linger.ms} (a retried batch: the retry backoff), or when a flush, a close, or a thread waiting for memory
 * asks for everything to go now.
 *
 * <p>Locking: each deque is its own lock; the memory wait happens outside any deque lock.
 */
public final class RecordAccumulator {

    private final int batchSize;
    private final long lingerMs;
    private final long retryBackoffMs;
    private final CompressionType compression;
    private final BufferPool pool;
    private final ConcurrentMap<TopicPartition, Deque<ProducerBatch>> batches = new ConcurrentHashMap<>();
    private final Set<ProducerBatch> incomplete = ConcurrentHashMap.newKeySet();
    private final AtomicInteger flushesInProgress = new AtomicInteger();
    private final AtomicInteger appendsInProgress = new AtomicInteger();
    private volatile boolean closed;

    /** What an append did, so the caller knows whether to wake the sender. */
    public record AppendResult(CompletableFuture<RecordMetadata> future, boolean batchIsFull, boolean newBatchCreated) {
    }

    /** Which brokers can be sent to now, when to look again, and topics whose leader is unknown. */
    public record ReadyResult(Set<Node> readyNodes, long nextReadyCheckDelayMs, Set<String> unknownLeaderTopics) {
    }

    /** Says whether a partition may be drained now and stamps sequences on drained batches (the idempotence rules). */
    public interface DrainGate {
        /** Whether the first batch of {@code tp} may be sent now. */
        boolean mayDrain(TopicPartition tp, ProducerBatch first);

        /** Called for each batch as it is taken for sending. */
        void onDrained(ProducerBatch batch);
    }

    /** A gate that lets everything through (no idempotence). */
    public static final DrainGate OPEN_GATE = new DrainGate() {
        @Override
        public boolean mayDrain(TopicPartition tp, ProducerBatch first) {
            return true;
        }

        @Override
        public void onDrained(ProducerBatch batch) {
        }
    };

    /** Creates an accumulator; memory comes from {@code pool}. */
    public RecordAccumulator(int batchSize, long lingerMs, long retryBackoffMs, CompressionType compression, BufferPool pool) {
        this.batchSize = batchSize;
        this.lingerMs = lingerMs;
        this.retryBackoffMs = retryBackoffMs;
        this.compression = compression;
        this.pool = pool;
    }

    /** The upper bound of a batch holding only this record: what must be reserved for it at least. */
    public static int estimateSizeAlone(byte[] key, byte[] value, Header[] headers) {
        return RecordBatch.HEADER_SIZE + RecordBatchBuilder.estimateRecordSize(key, value, headers) + 64;
    }

    /**
     * Appends a record to {@code tp}'s open batch, or to a new one, blocking up to {@code maxBlockMs} for memory.
     *
     * @throws RecordTooLargeException if the record alone exceeds {@code buffer.memory}
     */
    public AppendResult append(TopicPartition tp, long timestamp, byte[] key, byte[] value, Header[] headers, Callback callback,
                               long maxBlockMs, long nowMs) {
        appendsInProgress.incrementAndGet();
        int reserved = 0;
        byte[] buffer = null;
        try {
            Deque<ProducerBatch> dq = batches.computeIfAbsent(tp, k -> new ArrayDeque<>());
            synchronized (dq) {
                checkOpen();
                AppendResult r = tryAppend(dq, timestamp, key, value, headers, callback);
                if (r != null) {
                    return r;
                }
            }
            int size = Math.max(batchSize, estimateSizeAlone(key, value, headers));
            if (size > pool.totalMemory()) {
                throw new RecordTooLargeException("The message is " + size + " bytes when serialized, which is larger than the total "
                    + "memory buffer you have configured with the buffer.memory configuration (" + pool.totalMemory() + ")");
            }
            buffer = pool.allocateArray(size, maxBlockMs);
            reserved = size;
            synchronized (dq) {
                checkOpen();
                AppendResult r = tryAppend(dq, timestamp, key, value, headers, callback);
                if (r != null) {
                    return r;
                }
                ProducerBatch batch = new ProducerBatch(tp, compression, size, nowMs, buffer);
                CompletableFuture<RecordMetadata> f = batch.tryAppend(timestamp, key, value, headers, callback, Math.max(batchSize, size));
                dq.addLast(batch);
                incomplete.add(batch);
                reserved = 0;
                return new AppendResult(f, dq.size() > 1 || batch.isFull(batchSize), true);
            }
        } finally {
            if (reserved > 0) {
                // Another thread opened a batch meanwhile: the recycled array was never written to.
                pool.deallocate(reserved, buffer);
            }
            appendsInProgress.decrementAndGet();
        }
    }

    private AppendResult tryAppend(Deque<ProducerBatch> dq, long timestamp, byte[] key, byte[] value, Header[] headers,
                                   Callback callback) {
        ProducerBatch last = dq.peekLast();
        if (last == null || last.retry) {
            return null;
        }
        CompletableFuture<RecordMetadata> f = last.tryAppend(timestamp, key, value, headers, callback, batchSize);
        if (f == null) {
            return null;
        }
        return new AppendResult(f, dq.size() > 1 || last.isFull(batchSize), false);
    }

    /** Which leaders have sendable data, and how long until the next batch becomes sendable. */
    public ReadyResult ready(Cluster cluster, long nowMs) {
        Set<Node> ready = new HashSet<>();
        Set<String> unknown = new HashSet<>();
        long next = Long.MAX_VALUE;
        boolean exhausted = pool.queued() > 0;
        boolean flushing = flushesInProgress.get() > 0 || closed;
        for (Map.Entry<TopicPartition, Deque<ProducerBatch>> e : batches.entrySet()) {
            Deque<ProducerBatch> dq = e.getValue();
            synchronized (dq) {
                ProducerBatch first = dq.peekFirst();
                if (first == null) {
                    continue;
                }
                Node leader = cluster.leaderFor(e.getKey());
                if (leader == null) {
                    unknown.add(e.getKey().topic());
                    continue;
                }
                if (ready.contains(leader)) {
                    continue;
                }
                long waitedMs = nowMs - (first.retry ? first.lastAttemptMs() : first.createdMs);
                long timeToWait = first.retry ? retryBackoffMs : lingerMs;
                boolean backingOff = first.retry && waitedMs < retryBackoffMs;
                boolean full = dq.size() > 1 || first.isFull(batchSize);
                boolean sendable = full || waitedMs >= timeToWait || exhausted || flushing;
                if (sendable && !backingOff) {
                    ready.add(leader);
                } else {
                    next = Math.min(next, Math.max(1, timeToWait - waitedMs));
                }
            }
        }
        return new ReadyResult(ready, next, unknown);
    }

    /**
     * Takes, for each ready broker, batches from the front of its partitions' deques, up to {@code maxRequestBytes}
     * per broker (at least one batch). Partitions the gate holds back are skipped. Taken batches are closed.
     */
    public Map<Integer, List<ProducerBatch>> drain(Cluster cluster, Set<Node> nodes, int maxRequestBytes, DrainGate gate, long nowMs) {
        Map<Integer, List<ProducerBatch>> out = new HashMap<>();
        for (Node node : nodes) {
            List<ProducerBatch> taken = new ArrayList<>();
            int bytes = 0;
            for (Map.Entry<TopicPartition, Deque<ProducerBatch>> e : batches.entrySet()) {
                if (!node.equals(cluster.leaderFor(e.getKey()))) {
                    continue;
                }
                Deque<ProducerBatch> dq = e.getValue();
                synchronized (dq) {
                    ProducerBatch first = dq.peekFirst();
                    if (first == null || (first.retry && nowMs - first.lastAttemptMs() < retryBackoffMs)) {
                        continue;
                    }
                    if (!gate.mayDrain(e.getKey(), first)) {
                        continue;
                    }
                    int size = first.close().remaining();
                    if (!taken.isEmpty() && bytes + size > maxRequestBytes) {
                        break;
                    }
                    if (first.attempts == 0) {
                        compact(first);
                    }
                    dq.pollFirst();
                    gate.onDrained(first);
                    first.inFlight = true;
                    first.attempted(nowMs);
                    taken.add(first);
                    bytes += size;
                }
            }
            if (!taken.isEmpty()) {
                out.put(node.id(), taken);
            }
        }
        return out;
    }

    /**
     * Before a batch is first sent: its bytes move into an array of their size and the rest of its {@code batch.size}
     * reservation goes back to the pool (with the array, for the next batch). Without this, a batch in flight held a
     * whole batch.size however few records it carried, so with many partitions (a batch of one or two records each)
     * {@code buffer.memory / batch.size} batches in flight exhausted the memory with little data and send() blocked.
     */
    private void compact(ProducerBatch batch) {
        int before = batch.reservedBytes;
        byte[] unused = batch.compact();
        if (unused != null && incomplete.contains(batch)) {
            pool.shrink(before, batch.reservedBytes, unused);
        }
    }

    /**
     * Puts a batch that failed with a retriable error back at the front of its deque, in sequence order among other
     * retried batches, so it is re-sent before anything newer for that partition.
     */
    public void reenqueue(ProducerBatch batch, long nowMs) {
        batch.retry = true;
        batch.inFlight = false;
        Deque<ProducerBatch> dq = batches.computeIfAbsent(batch.tp, k -> new ArrayDeque<>());
        synchronized (dq) {
            if (!batch.hasSequence()) {
                dq.addFirst(batch);
                return;
            }
            List<ProducerBatch> ahead = new ArrayList<>();
            while (!dq.isEmpty() && dq.peekFirst().hasSequence() && dq.peekFirst().baseSequence < batch.baseSequence) {
                ahead.add(dq.pollFirst());
            }
            dq.addFirst(batch);
            for (int i = ahead.size() - 1; i >= 0; i--) {
                dq.addFirst(ahead.get(i));
            }
        }
    }

    /** Removes and returns queued (not in-flight) batches whose delivery deadline has passed. */
    public List<ProducerBatch> expiredBatches(long deliveryTimeoutMs, long nowMs) {
        List<ProducerBatch> expired = new ArrayList<>();
        for (Deque<ProducerBatch> dq : batches.values()) {
            synchronized (dq) {
                Iterator<ProducerBatch> it = dq.iterator();
                while (it.hasNext()) {
                    ProducerBatch b = it.next();
                    if (nowMs - b.createdMs >= deliveryTimeoutMs) {
                        b.close();
                        it.remove();
                        expired.add(b);
                    } else {
                        break;
                    }
                }
            }
        }
        return expired;
    }

    /** Releases a completed batch's memory. */
    public void deallocate(ProducerBatch batch) {
        if (incomplete.remove(batch)) {
            pool.deallocate(batch.reservedBytes, batch.reusableBuffer());
        }
    }

    /** Queued batches (retried ones included) for every partition, in the order they will go; for re-sequencing. */
    public List<ProducerBatch> queuedBatches(TopicPartition tp) {
        Deque<ProducerBatch> dq = batches.get(tp);
        if (dq == null) {
            return List.of();
        }
        synchronized (dq) {
            return new ArrayList<>(dq);
        }
    }

    /** Makes every batch ready at once until {@link #awaitFlushCompletion()} ends. */
    public void beginFlush() {
        flushesInProgress.incrementAndGet();
    }

    /** Blocks until every batch that existed when called has completed. */
    public void awaitFlushCompletion() throws InterruptedException {
        try {
            for (ProducerBatch b : new ArrayList<>(incomplete)) {
                try {
                    b.completion().get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("batch completion never fails", e);
                }
            }
        } finally {
            flushesInProgress.decrementAndGet();
        }
    }

    /** Whether any batch is queued or in flight. */
    public boolean hasIncomplete() {
        return !incomplete.isEmpty();
    }

    /** Whether any batch is queued (not yet taken by the sender). */
    public boolean hasUndrained() {
        for (Deque<ProducerBatch> dq : batches.values()) {
            synchronized (dq) {
                if (!dq.isEmpty()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether an application thread is inside {@link #append}. */
    public boolean hasAppendsInProgress() {
        return appendsInProgress.get() > 0;
    }

    /** Refuses new appends; what is queued still drains (everything counts as ready). */
    public void close() {
        closed = true;
        pool.close();
    }

    /** Fails every incomplete batch (queued or in flight) with {@code error}: the forced end of a close. */
    public void abortIncompleteBatches(RuntimeException error) {
        for (Deque<ProducerBatch> dq : batches.values()) {
            synchronized (dq) {
                dq.clear();
            }
        }
        for (ProducerBatch b : new ArrayList<>(incomplete)) {
            b.close();
            b.complete(-1, -1, error);
            deallocate(b);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("Cannot perform operation after producer has been closed");
        }
    }
}
