package io.raftline.client.internals.consumer;

import io.raftline.client.common.Cluster;
import io.raftline.client.common.Node;
import io.raftline.client.common.TimestampType;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.header.Headers;
import io.raftline.client.common.serialization.Deserializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.OffsetResetStrategy;
import io.raftline.client.errors.ApiException;
import io.raftline.client.errors.CorruptRecordException;
import io.raftline.client.errors.Errors;
import io.raftline.client.errors.OffsetOutOfRangeException;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.errors.RetriableException;
import io.raftline.client.errors.SerializationException;
import io.raftline.client.internals.metadata.Metadata;
import io.raftline.client.internals.net.ConnectionPool;
import io.raftline.client.internals.retry.ExponentialBackoff;
import io.raftline.common.Time;
import io.raftline.fetchsession.FetchSessionBuilder;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import io.raftline.record.Header;
import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.RecordFormatException;
import io.raftline.record.Records;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches records for the assigned partitions, ahead of the application: a partition is fetched again as soon as its
 * previous answer has arrived, from where that answer ends, while the application still works through it, up to
 * {@link #PREFETCH_DEPTH} answers buffered per partition and about {@code fetch.max.bytes} buffered in all. Each
 * partition is in at most one request at a time; one request per leader at a time carries every partition ready to
 * be fetched. Answers are queued as they arrive (gRPC threads only enqueue) and turned into {@link ConsumerRecord}s
 * on the polling thread.
 *
 * <p>Each leader is fetched in an incremental fetch session (KIP-227, {@link FetchSessionBuilder}, the same code the
 * brokers' followers use): the first fetch names every partition ready (a full fetch, epoch 0); the next ones name
 * only partitions added or whose position or limits changed, and forget those not ready any more (unassigned,
 * paused, leader moved, or with {@link #PREFETCH_DEPTH} answers buffered); the broker answers only partitions with
 * something new. A refused session (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH), a failed or timed-out
 * fetch starts over with a full fetch; a broker without sessions (answering session 0) gets full fetches.
 * {@link #close} ends the sessions (epoch -1).
 *
 * <p>Contracts of {@link #collect}: every batch's CRC is checked when {@code check.crcs} is on, and a corrupt batch
 * is an error ({@link CorruptRecordException}), never records; records before the position (the fetch started
 * inside a batch) are skipped; a partial batch at the end of a response is ignored and fetched again; the position
 * only moves past records actually returned. An answer is used only if it starts exactly where the partition's
 * buffered answers end (or at the position when none is buffered): an answer overtaken by a seek is dropped, and a
 * buffered answer that no longer starts at the position is dropped with the ones after it.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class Fetcher<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(Fetcher.class);

    /**
     * The fetch settings from the consumer's config; {@code reconnectBackoffMs} and {@code reconnectBackoffMaxMs}
     * bound how long a broker that a fetch could not reach is left alone (see {@link NodeBackoff}).
     */
    public record Settings(int minBytes, int maxWaitMs, int maxBytes, int maxPartitionBytes, boolean checkCrcs, int requestTimeoutMs,
                           long reconnectBackoffMs, long reconnectBackoffMaxMs) {
        /** With Kafka's default reconnect.backoff.ms and reconnect.backoff.max.ms (50 and 1000 ms). */
        public Settings(int minBytes, int maxWaitMs, int maxBytes, int maxPartitionBytes, boolean checkCrcs, int requestTimeoutMs) {
            this(minBytes, maxWaitMs, maxBytes, maxPartitionBytes, checkCrcs, requestTimeoutMs, 50, 1000);
        }
    }

    /** Answers buffered per partition (the one being handed out and the ones fetched ahead of it). */
    public static final int PREFETCH_DEPTH = 2;

    /** An answered (or failed) fetch, with the session it was built in. */
    private record Completed(int nodeId, FetchSessionBuilder session, Map<TopicPartition, Long> fetchOffsets,
                             FetchResponse response, Throwable error) {
    }

    /** The fetch session with one broker (polling thread only). */
    private static final class BrokerSession {
        final Node node;
        final FetchSessionBuilder builder = new FetchSessionBuilder();

        BrokerSession(Node node) {
            this.node = node;
        }
    }

    /** A partition's answer being handed out, possibly over several polls (max.poll.records). */
    private final class Cursor {
        final TopicPartition tp;
        final Iterator<RecordBatch> batches;
        final int bytes;
        /** Where the next fetch starts: after the last whole batch, or -1 when unknown (a malformed length). */
        final long endOffset;
        RecordBatch batch;
        /** The current batch's leader epoch and timestamp type, as every record of it carries them. */
        Optional<Integer> batchEpoch;
        TimestampType batchTimestampType;
        Iterator<Record> records;
        long nextOffset;

        Cursor(TopicPartition tp, ByteBuffer data, long fetchOffset) {
            this.tp = tp;
            this.batches = Records.batches(data).iterator();
            this.bytes = data.remaining();
            this.nextOffset = fetchOffset;
            this.endOffset = endOffset(data, fetchOffset);
        }
    }

    /**
     * The offset after the last whole batch of {@code data} (length fields only; CRCs are checked when the batches
     * are handed out), {@code fetchOffset} when it holds no whole batch, -1 when a length field is malformed.
     */
    static long endOffset(ByteBuffer data, long fetchOffset) {
        long end = fetchOffset;
        int pos = data.position();
        int limit = data.limit();
        while (limit - pos >= RecordBatch.HEADER_SIZE) {
            int length = data.getInt(pos + RecordBatch.LENGTH_OFFSET);
            if (length < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD) {
                return -1;
            }
            if (length > limit - pos - RecordBatch.LOG_OVERHEAD) {
                break;
            }
            RecordBatch batch = RecordBatch.view(data, pos);
            end = Math.max(end, batch.nextOffset());
            pos += RecordBatch.LOG_OVERHEAD + length;
        }
        return end;
    }

    private final Settings settings;
    private final Time time;
    private final DoubleSupplier random;
    private final Metadata metadata;
    private final ConnectionPool pool;
    private final SubscriptionState subscriptions;
    private final Deserializer<K> keyDeserializer;
    private final Deserializer<V> valueDeserializer;
    private final ConcurrentLinkedQueue<Completed> completed = new ConcurrentLinkedQueue<>();
    /** Partitions in a request not answered yet (polling thread only, like everything but {@link #completed}). */
    private final Set<TopicPartition> inFlight = new HashSet<>();
    /** The fetch session per broker id. */
    private final Map<Integer, BrokerSession> sessions = new HashMap<>();
    /** Buffered answers per partition, in offset order; a partition with none has no entry. */
    private final Map<TopicPartition, ArrayDeque<Cursor>> cursors = new LinkedHashMap<>();
    /** Brokers whose last fetches failed, left alone for a while (on {@link Time#hiResMilliseconds}). */
    private final NodeBackoff nodeBackoff;
    private long bufferedBytes;
    private final Object signal = new Object();
    private RaftlineException pendingError;
    private boolean woken;

    /** Creates the fetcher; {@code time} times the backoffs, {@code random} draws their jitter (uniform in [0, 1)). */
    public Fetcher(Settings settings, Time time, DoubleSupplier random, Metadata metadata, ConnectionPool pool,
                   SubscriptionState subscriptions, Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer) {
        this.settings = settings;
        this.time = time;
        this.random = random;
        this.nodeBackoff = new NodeBackoff(ExponentialBackoff.ofClient(settings.reconnectBackoffMs(),
            settings.reconnectBackoffMaxMs()));
        this.metadata = metadata;
        this.pool = pool;
        this.subscriptions = subscriptions;
        this.keyDeserializer = keyDeserializer;
        this.valueDeserializer = valueDeserializer;
    }

    /**
     * Sends one Fetch per leader with no fetch in flight, for the fetchable partitions that are in no request and
     * have fewer than {@link #PREFETCH_DEPTH} answers buffered, while fewer than {@code fetch.max.bytes} are buffered
     * in all. Returns the number of requests sent.
     */
    public int sendFetches() {
        Cluster cluster = metadata.cluster();
        Map<Node, List<TopicPartition>> byNode = new LinkedHashMap<>();
        // brokers leading a partition left out for its full buffer: their fetch must not park (see send)
        Set<Integer> heldBack = new HashSet<>();
        boolean unknownLeader = false;
        long budget = Math.max(1, settings.maxBytes());
        long nowMs = time.hiResMilliseconds();
        for (TopicPartition tp : subscriptions.fetchablePartitions()) {
            if (inFlight.contains(tp) || bufferedBytes >= budget) {
                continue;
            }
            ArrayDeque<Cursor> queue = cursors.get(tp);
            if (queue != null && (queue.size() >= PREFETCH_DEPTH || queue.peekLast().endOffset < 0)) {
                Node leader = cluster.leaderFor(tp);
                if (leader != null) {
                    heldBack.add(leader.id());
                }
                continue;
            }
            Node leader = cluster.leaderFor(tp);
            if (leader == null) {
                unknownLeader = true;
                continue;
            }
            if (nodeBackoff.isBackedOff(leader.id(), nowMs)) {
                continue;
            }
            BrokerSession session = sessions.get(leader.id());
            if (session != null && session.builder.inFlight()) {
                // one fetch per session at a time: this partition goes in the next one
                continue;
            }
            byNode.computeIfAbsent(leader, n -> new ArrayList<>()).add(tp);
        }
        if (unknownLeader) {
            metadata.requestUpdate();
        }
        for (Map.Entry<Node, List<TopicPartition>> e : byNode.entrySet()) {
            send(e.getKey(), e.getValue(), cluster, heldBack.contains(e.getKey().id()));
        }
        return byNode.size();
    }

    private FetchRequest.Builder base() {
        return FetchRequest.newBuilder().setReplicaId(-1).setMaxWaitMs(settings.maxWaitMs())
            .setMinBytes(settings.minBytes()).setMaxBytes(settings.maxBytes());
    }

    /**
     * {@code noWait}: a partition of this broker was left out because its buffer is full; the fetch is answered at
     * once rather than parked (up to {@code fetch.max.wait.ms}) on the others, so that the partition, once the
     * application has drained it, goes in the next fetch without waiting for this one (one fetch per broker at a
     * time). This costs at most one fetch per poll: a full buffer means poll returns records at once.
     */
    private void send(Node node, List<TopicPartition> partitions, Cluster cluster, boolean noWait) {
        FetchRequest.Builder request = base();
        if (noWait) {
            request.setMaxWaitMs(0);
        }
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (TopicPartition tp : partitions) {
            long position = nextFetchOffset(tp);
            offsets.put(tp, position);
            inFlight.add(tp);
            var info = cluster.partition(tp);
            request.addPartitions(FetchRequest.FetchPartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition())
                .setFetchOffset(position).setCurrentLeaderEpoch(info == null ? -1 : info.leaderEpoch())
                .setLastFetchedEpoch(-1).setLogStartOffset(-1).setPartitionMaxBytes(settings.maxPartitionBytes()));
        }
        BrokerSession session = sessions.get(node.id());
        if (session == null || !session.node.equals(node)) {
            // a broker id now at another address is another broker for the session too
            session = new BrokerSession(node);
            sessions.put(node.id(), session);
        }
        FetchRequest wire = session.builder.toWire(request.build());
        LOG.debug("fetch {} from broker {} in session {} ({} named, {} forgotten)", offsets, node.id(),
            wire.getSessionId(), wire.getPartitionsCount(), wire.getForgottenCount());
        long timeoutMs = settings.requestTimeoutMs() + (long) settings.maxWaitMs();
        FetchSessionBuilder builder = session.builder;
        pool.get(node).fetch(wire.toBuilder(), timeoutMs).whenComplete((response, error) -> {
            completed.add(new Completed(node.id(), builder, offsets, response, error));
            synchronized (signal) {
                signal.notifyAll();
            }
        });
    }

    /** Where the next fetch of {@code tp} starts: where its buffered answers end, else the position. */
    private long nextFetchOffset(TopicPartition tp) {
        ArrayDeque<Cursor> queue = cursors.get(tp);
        return queue == null ? subscriptions.position(tp) : queue.peekLast().endOffset;
    }

    /** Whether there is data (or an error) waiting to be collected: answers, or records of a partition not paused. */
    public boolean hasAvailable() {
        if (!completed.isEmpty() || pendingError != null) {
            return true;
        }
        if (cursors.isEmpty()) {
            return false;
        }
        Set<TopicPartition> paused = subscriptions.pausedPartitions();
        for (TopicPartition tp : cursors.keySet()) {
            if (!paused.contains(tp)) {
                return true;
            }
        }
        return false;
    }

    /** Partitions in a request whose answer has not been collected yet (for tests and metrics). */
    public int partitionsInFlight() {
        return inFlight.size();
    }

    /** Bytes of fetched answers not yet handed out in full (for tests and metrics). */
    public long bufferedBytes() {
        return bufferedBytes;
    }

    /**
     * Blocks until an answer arrives, {@link #wakeup()} is called, or {@code ms} pass (at most until the soonest
     * broker backoff ends, so its partitions are fetched again as soon as it does).
     */
    public void await(long ms) throws InterruptedException {
        long untilReady = nodeBackoff.msUntilNextReady(time.hiResMilliseconds());
        long wait = untilReady < 0 ? ms : Math.min(ms, untilReady);
        synchronized (signal) {
            if (completed.isEmpty() && !woken && wait > 0) {
                signal.wait(wait);
            }
            woken = false;
        }
    }

    /** Ends a pending {@link #await}. Thread-safe. */
    public void wakeup() {
        synchronized (signal) {
            woken = true;
            signal.notifyAll();
        }
    }

    /**
     * Turns received answers into records, at most {@code maxRecords}, advancing positions. Errors of the answers are
     * handled here: stale leadership triggers a metadata refresh, an out-of-range offset a reset (or, with
     * {@code auto.offset.reset=none}, {@link OffsetOutOfRangeException}); a corrupt batch throws. An error met after
     * some records were collected is kept and thrown by the next call, so no record is lost.
     */
    public Map<TopicPartition, List<ConsumerRecord<K, V>>> collect(int maxRecords) {
        if (pendingError != null) {
            RaftlineException e = pendingError;
            pendingError = null;
            throw e;
        }
        Completed c;
        while ((c = completed.poll()) != null) {
            inFlight.removeAll(c.fetchOffsets().keySet());
            handle(c);
        }
        Map<TopicPartition, List<ConsumerRecord<K, V>>> out = new LinkedHashMap<>();
        int count = 0;
        Set<TopicPartition> paused = subscriptions.pausedPartitions();
        Iterator<Map.Entry<TopicPartition, ArrayDeque<Cursor>>> it = cursors.entrySet().iterator();
        while (it.hasNext() && count < maxRecords) {
            Map.Entry<TopicPartition, ArrayDeque<Cursor>> entry = it.next();
            TopicPartition tp = entry.getKey();
            ArrayDeque<Cursor> queue = entry.getValue();
            Cursor cursor = queue.peekFirst();
            if (!subscriptions.isAssigned(tp) || !Long.valueOf(cursor.nextOffset).equals(subscriptions.position(tp))) {
                // A seek (or a gap): this answer and the ones fetched after it no longer follow the position.
                dropAll(queue);
                it.remove();
                continue;
            }
            if (paused.contains(tp)) {
                continue;
            }
            List<ConsumerRecord<K, V>> list = new ArrayList<>(Math.min(maxRecords - count, 1024));
            try {
                // Several buffered answers of one partition may go out in one poll, in order.
                while (cursor != null && list.size() < maxRecords - count) {
                    if (!drain(cursor, list, maxRecords - count)) {
                        break;
                    }
                    queue.pollFirst();
                    bufferedBytes -= cursor.bytes;
                    Cursor next = queue.peekFirst();
                    if (next != null && next.nextOffset != cursor.nextOffset) {
                        dropAll(queue);
                        next = null;
                    }
                    cursor = next;
                }
                if (queue.isEmpty()) {
                    it.remove();
                }
            } catch (RaftlineException e) {
                // The cursor has moved past the bad batch or record; drop it (and what was fetched after it) so the
                // next fetch starts again at the position (the bad data), and the error repeats until the
                // application seeks past it.
                dropAll(queue);
                it.remove();
                if (!list.isEmpty()) {
                    out.put(tp, list);
                }
                if (out.isEmpty()) {
                    throw e;
                }
                pendingError = e;
                return out;
            }
            if (!list.isEmpty()) {
                out.put(tp, list);
                count += list.size();
            }
        }
        return out;
    }

    private void dropAll(ArrayDeque<Cursor> queue) {
        for (Cursor cursor : queue) {
            bufferedBytes -= cursor.bytes;
        }
        queue.clear();
    }

    private void handle(Completed c) {
        BrokerSession session = sessions.get(c.nodeId());
        // (a session replaced meanwhile, or closed, has nothing in flight to apply this to)
        if (session != null && session.builder == c.session() && session.builder.inFlight()) {
            if (c.error() != null) {
                session.builder.startOver();
            } else {
                session.builder.onResponse(c.response());
            }
        }
        if (c.error() != null) {
            LOG.debug("fetch from broker {} failed: {}", c.nodeId(), c.error().toString());
            // Not again at once: a dead broker would be hammered until the metadata names a new leader.
            long waitMs = nodeBackoff.failed(c.nodeId(), time.hiResMilliseconds(), random.getAsDouble());
            LOG.debug("leaving broker {} alone for {} ms", c.nodeId(), waitMs);
            metadata.requestUpdate();
            metadata.nodeFailed();
            return;
        }
        nodeBackoff.reached(c.nodeId());
        ErrorCode top = c.response().getError().getCode();
        if (top == ErrorCode.FETCH_SESSION_ID_NOT_FOUND || top == ErrorCode.INVALID_FETCH_SESSION_EPOCH) {
            // the session builder starts over: the next fetch is full
            LOG.debug("fetch session with broker {} refused: {}", c.nodeId(), c.response().getError().getMessage());
            return;
        }
        if (top != ErrorCode.NONE) {
            metadata.requestUpdate();
            return;
        }
        for (FetchResponse.PartitionData pd : c.response().getPartitionsList()) {
            TopicPartition tp = new TopicPartition(pd.getTopic(), pd.getPartition());
            Long fetchOffset = c.fetchOffsets().get(tp);
            if (fetchOffset == null || !subscriptions.isAssigned(tp) || subscriptions.position(tp) == null
                || fetchOffset != nextFetchOffset(tp)) {
                continue;
            }
            boolean prefetched = cursors.containsKey(tp);
            ErrorCode code = pd.getError().getCode();
            if (LOG.isDebugEnabled()) {
                LOG.debug("fetch answer for {} at {}: {} hw {} bytes {}", tp, fetchOffset, code,
                    pd.getHighWatermark(), pd.getRecords().size());
            }
            if (code == ErrorCode.NONE) {
                subscriptions.updateLogBounds(tp, pd.getHighWatermark(), pd.getLogStartOffset());
                if (!pd.getRecords().isEmpty()) {
                    Cursor cursor = new Cursor(tp, pd.getRecords().asReadOnlyByteBuffer(), fetchOffset);
                    // An answer without a whole batch at or after the fetch offset holds nothing to hand out; one
                    // with a malformed length (endOffset -1) is kept so that handing it out reports the corruption.
                    if (cursor.endOffset != fetchOffset) {
                        cursors.computeIfAbsent(tp, k -> new ArrayDeque<>(PREFETCH_DEPTH)).addLast(cursor);
                        bufferedBytes += cursor.bytes;
                    }
                }
            } else if (prefetched) {
                // An error past the buffered records: they are still good; the error is met again (and handled)
                // when the partition is fetched from its position.
                continue;
            } else if (code == ErrorCode.OFFSET_OUT_OF_RANGE) {
                if (subscriptions.defaultResetStrategy() == OffsetResetStrategy.NONE) {
                    pendingError = new OffsetOutOfRangeException("Fetch position " + fetchOffset + " is out of range for partition "
                        + tp + " and auto.offset.reset is none: " + pd.getError().getMessage());
                } else {
                    subscriptions.requestReset(tp, subscriptions.defaultResetStrategy());
                }
            } else {
                ApiException e = Errors.toException(pd.getError());
                if (e instanceof RetriableException) {
                    metadata.applyLeaderHint(tp, pd.hasCurrentLeader() ? pd.getCurrentLeader() : null);
                    metadata.requestUpdate();
                } else {
                    pendingError = e;
                }
            }
        }
    }

    /**
     * Moves records from the cursor into {@code out}; returns whether the cursor is used up. The position follows
     * the records handed out; it is written once when this returns (or throws), not per record.
     */
    private boolean drain(Cursor cursor, List<ConsumerRecord<K, V>> out, int max) {
        boolean moved = false;
        int epoch = 0;
        try {
            while (out.size() < max) {
                if (cursor.records == null || !cursor.records.hasNext()) {
                    if (cursor.batch != null) {
                        cursor.nextOffset = Math.max(cursor.nextOffset, cursor.batch.nextOffset());
                        epoch = cursor.batch.partitionLeaderEpoch();
                        moved = true;
                        cursor.batch = null;
                        cursor.records = null;
                    }
                    if (!cursor.batches.hasNext()) {
                        return true;
                    }
                    RecordBatch batch = cursor.batches.next();
                    if (batch.lastOffset() < cursor.nextOffset) {
                        continue;
                    }
                    if (batch.magic() != RecordBatch.CURRENT_MAGIC || (settings.checkCrcs() && !batch.isValid())) {
                        throw new CorruptRecordException("Record batch for partition " + cursor.tp + " at offset " + batch.baseOffset()
                            + " is invalid (CRC or magic mismatch); the consumer stays at offset " + cursor.nextOffset
                            + " (seek past it to skip)");
                    }
                    int batchEpoch = batch.partitionLeaderEpoch();
                    cursor.batch = batch;
                    cursor.batchEpoch = batchEpoch < 0 ? Optional.empty() : Optional.of(batchEpoch);
                    cursor.batchTimestampType = batch.timestampType() == io.raftline.record.TimestampType.LOG_APPEND_TIME
                        ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
                    cursor.records = batch.iterator();
                    continue;
                }
                Record r = cursor.records.next();
                if (r.offset() < cursor.nextOffset) {
                    continue;
                }
                out.add(toConsumerRecord(cursor, r));
                cursor.nextOffset = r.offset() + 1;
                epoch = cursor.batch.partitionLeaderEpoch();
                moved = true;
            }
            return false;
        } catch (RecordFormatException e) {
            throw new CorruptRecordException("Malformed record batch for partition " + cursor.tp + " near offset " + cursor.nextOffset
                + ": " + e.getMessage(), e);
        } finally {
            if (moved) {
                subscriptions.seek(cursor.tp, cursor.nextOffset, epoch);
            }
        }
    }

    private ConsumerRecord<K, V> toConsumerRecord(Cursor cursor, Record r) {
        TopicPartition tp = cursor.tp;
        Headers headers = new Headers();
        for (Header h : r.headers()) {
            headers.add(h.key(), h.value());
        }
        byte[] key = r.keyBytes();
        byte[] value = r.valueBytes();
        K k;
        V v;
        try {
            k = keyDeserializer.deserialize(tp.topic(), headers, key);
            v = valueDeserializer.deserialize(tp.topic(), headers, value);
        } catch (RuntimeException e) {
            throw new SerializationException("Error deserializing key/value for partition " + tp + " at offset " + r.offset()
                + ". If needed, please seek past the record to continue consumption.", e);
        }
        return new ConsumerRecord<>(tp.topic(), tp.partition(), r.offset(), r.timestamp(), cursor.batchTimestampType,
            key == null ? -1 : key.length, value == null ? -1 : value.length, k, v, headers, cursor.batchEpoch);
    }

    /**
     * Ends the fetch sessions (epoch -1, so the brokers free their slots at once rather than when they age out),
     * waiting at most {@code timeoutMs} for the brokers to take note. Best effort: a broker not reached drops the
     * session on its own.
     */
    public void close(long timeoutMs) {
        List<java.util.concurrent.CompletableFuture<FetchResponse>> closing = new ArrayList<>();
        for (BrokerSession session : sessions.values()) {
            FetchRequest close = session.builder.closing(base().build());
            if (close != null) {
                try {
                    closing.add(pool.get(session.node).fetch(close.toBuilder(), Math.max(1, timeoutMs)));
                } catch (RuntimeException e) {
                    LOG.debug("could not close the fetch session with broker {}: {}", session.node.id(), e.toString());
                }
            }
        }
        sessions.clear();
        try {
            java.util.concurrent.CompletableFuture.allOf(closing.toArray(java.util.concurrent.CompletableFuture[]::new))
                .get(Math.max(1, timeoutMs), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.debug("fetch sessions not all closed: {}", e.toString());
        }
    }

    /** Drops buffered answers of partitions no longer assigned or sought elsewhere (after assign or seek). */
    public void clearBufferedFor(Set<TopicPartition> partitions) {
        Iterator<Map.Entry<TopicPartition, ArrayDeque<Cursor>>> it = cursors.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<TopicPartition, ArrayDeque<Cursor>> e = it.next();
            if (partitions.contains(e.getKey())) {
                dropAll(e.getValue());
                it.remove();
            }
        }
    }
}
