package io.raftline.client.internals.producer;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.producer.Callback;
import io.raftline.client.producer.RecordMetadata;
import io.raftline.record.CompressionType;
import io.raftline.record.Header;
import io.raftline.record.RecordBatch;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The records bound for one partition that travel together as one record batch. Application threads append while
 * the batch is open (under the partition deque's lock); the sender closes it, stamps the idempotent producer's
 * id, epoch and sequence into the header, sends it, and completes it exactly once. A retried batch is re-sent with
 * the same bytes and sequence.
 */
public final class ProducerBatch {

    /** One appended record's completion. */
    private record Thunk(CompletableFuture<RecordMetadata> future, Callback callback, long timestamp, int keySize, int valueSize) {
    }

    final TopicPartition tp;
    final long createdMs;
    /** What the batch holds of buffer.memory: batch.size while open; its encoded size once compacted. */
    int reservedBytes;
    private final RecordBatchBuilder builder;
    private final List<Thunk> thunks = new ArrayList<>();
    private final CompletableFuture<Void> completion = new CompletableFuture<>();
    private final AtomicBoolean done = new AtomicBoolean();
    private ByteBuffer built;
    private boolean reusable;
    /** The encoded bytes were moved into an array of their own size (see {@link #compact}). */
    private boolean compacted;
    private long lastAttemptMs;
    int attempts;
    boolean retry;
    boolean inFlight;
    int baseSequence = RecordBatch.NO_SEQUENCE;
    long producerId = RecordBatch.NO_PRODUCER_ID;
    short producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
    /** The leader refused the stamped sequence as out of order (so never stored it): stamp again when drained. */
    private boolean sequenceRefused;

    ProducerBatch(TopicPartition tp, CompressionType compression, int reservedBytes, long nowMs) {
        this(tp, compression, reservedBytes, nowMs, null);
    }

    /** A batch written into {@code buffer} (a recycled array of the buffer pool), or into its own array when null. */
    ProducerBatch(TopicPartition tp, CompressionType compression, int reservedBytes, long nowMs, byte[] buffer) {
        this.tp = tp;
        this.createdMs = nowMs;
        this.lastAttemptMs = nowMs;
        this.reservedBytes = reservedBytes;
        this.builder = buffer != null
            ? new RecordBatchBuilder(compression, TimestampType.CREATE_TIME, 0L, RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, buffer)
            : new RecordBatchBuilder(compression, TimestampType.CREATE_TIME, 0L, RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, Math.min(reservedBytes, 1 << 20));
    }

    /**
     * Marks the batch's array as safe to reuse once the batch is deallocated: the broker answered a request that
     * carried it, so gRPC has long copied the bytes out (a request still queued in a connecting channel, or an
     * acks=0 send, gives no such proof, and those arrays are left to the GC).
     */
    void answeredByBroker() {
        reusable = true;
    }

    /** The array to give back to the pool, or null when it may still be read. */
    byte[] reusableBuffer() {
        return reusable && !compacted ? builder.buffer() : null;
    }

    /**
     * Appends a record if it fits within {@code limitBytes} (the first record always fits); returns its future, or
     * null when the batch is full or already closed.
     */
    CompletableFuture<RecordMetadata> tryAppend(long timestamp, byte[] key, byte[] value, Header[] headers, Callback callback,
                                                int limitBytes) {
        if (built != null || !builder.hasRoomFor(limitBytes, key, value, headers)) {
            return null;
        }
        builder.append(timestamp, key, value, headers);
        CompletableFuture<RecordMetadata> f = new CompletableFuture<>();
        thunks.add(new Thunk(f, callback, timestamp, key == null ? -1 : key.length, value == null ? -1 : value.length));
        return f;
    }

    /** Whether another record of typical size would not fit. */
    boolean isFull(int limitBytes) {
        return built != null || builder.estimatedSizeInBytes() >= limitBytes;
    }

    /** Closes the batch to appends and encodes it (compressing if configured). Idempotent. */
    ByteBuffer close() {
        if (built == null) {
            built = builder.build();
        }
        return built.duplicate();
    }

    boolean isClosed() {
        return built != null;
    }

    /**
     * Closes the batch and, when its encoded bytes fill less than half of the reservation, moves them into an array of
     * their own size, so that in flight the batch holds what it sends rather than a whole {@code batch.size}. Call it
     * only before the batch is first sent (nothing else reads the builder's array yet). Returns the builder's array,
     * now unused, for the pool to recycle, or null when nothing moved; the caller gives the pool back the difference
     * between the old reservation and the new {@link #reservedBytes}.
     */
    byte[] compact() {
        if (attempts > 0 || compacted) {
            throw new IllegalStateException("compact a batch only before it is first sent: " + this);
        }
        ByteBuffer b = close();
        int size = b.remaining();
        byte[] old = builder.buffer();
        if (size > reservedBytes / 2 || !b.hasArray() || b.array() != old) {
            return null;
        }
        byte[] exact = new byte[size];
        b.get(exact);
        built = ByteBuffer.wrap(exact);
        compacted = true;
        reservedBytes = size;
        return old;
    }

    /**
     * Writes the idempotent producer's identity and the batch's first sequence into the encoded header and
     * recomputes the CRC (which covers those fields). The header layout is the codec's ({@link RecordBatch}
     * offsets); this only fills fields the builder left at "none".
     */
    void stampProducerState(long pid, short epoch, int sequence) {
        ByteBuffer buf = close();
        buf.putLong(RecordBatch.PRODUCER_ID_OFFSET, pid);
        buf.putShort(RecordBatch.PRODUCER_EPOCH_OFFSET, epoch);
        buf.putInt(RecordBatch.BASE_SEQUENCE_OFFSET, sequence);
        RecordBatch view = RecordBatch.view(buf, 0);
        buf.putInt(RecordBatch.CRC_OFFSET, (int) view.computeChecksum());
        this.producerId = pid;
        this.producerEpoch = epoch;
        this.baseSequence = sequence;
        this.sequenceRefused = false;
    }

    /**
     * Marks the stamped sequence as never stored (its leader refused it as out of order): drained next, the batch gets
     * the current epoch's next sequence. It keeps the old one until then, which orders it among its partition's retries.
     */
    void sequenceRefused() {
        sequenceRefused = true;
    }

    /** Whether the batch must be stamped again before it is sent: it has no sequence, or its sequence was refused. */
    boolean needsSequence() {
        return !hasSequence() || sequenceRefused;
    }

    boolean hasSequence() {
        return baseSequence != RecordBatch.NO_SEQUENCE;
    }

    int recordCount() {
        return thunks.size();
    }

    /** The encoded size (estimated while open). */
    int sizeInBytes() {
        return built != null ? built.remaining() : builder.estimatedSizeInBytes();
    }

    long lastAttemptMs() {
        return lastAttemptMs;
    }

    void attempted(long nowMs) {
        lastAttemptMs = nowMs;
        attempts++;
    }

    /** Completes when the batch is done, either way. */
    CompletableFuture<Void> completion() {
        return completion;
    }

    boolean isDone() {
        return done.get();
    }

    /**
     * Completes every record: success with {@code baseOffset} (-1 for acks=0) and the broker's append time
     * ({@code -1}: the records' own timestamps), or failure. Callbacks run here, in append order. Only the first
     * call has an effect.
     *
     * @return whether this call completed the batch
     */
    boolean complete(long baseOffset, long logAppendTimeMs, RuntimeException error) {
        return complete(baseOffset, logAppendTimeMs, error, null);
    }

    /**
     * As above; {@code first}, when this is the first completion, runs before any callback or future does (so a
     * metric it records is visible to whoever waited on a record's future).
     */
    boolean complete(long baseOffset, long logAppendTimeMs, RuntimeException error, Runnable first) {
        if (!done.compareAndSet(false, true)) {
            return false;
        }
        if (first != null) {
            first.run();
        }
        for (int i = 0; i < thunks.size(); i++) {
            Thunk t = thunks.get(i);
            long offset = baseOffset < 0 ? RecordMetadata.UNKNOWN_OFFSET : baseOffset + i;
            long ts = logAppendTimeMs >= 0 ? logAppendTimeMs : t.timestamp;
            RecordMetadata md = new RecordMetadata(tp, error == null ? offset : RecordMetadata.UNKNOWN_OFFSET, ts, t.keySize, t.valueSize);
            if (t.callback != null) {
                t.callback.onCompletion(md, error);
            }
            if (error == null) {
                t.future.complete(md);
            } else {
                t.future.completeExceptionally(error);
            }
        }
        completion.complete(null);
        return true;
    }

    @Override
    public String toString() {
        return "ProducerBatch(" + tp + ", records=" + thunks.size() + ", seq=" + baseSequence + ", attempts=" + attempts + ")";
    }
}
