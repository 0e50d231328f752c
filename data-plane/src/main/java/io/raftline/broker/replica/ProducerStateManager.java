package io.raftline.broker.replica;

import io.raftline.protocol.ErrorCode;
import io.raftline.record.RecordBatch;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Idempotent-producer state of one partition: per producer id its epoch and the last few batches
 * (sequence range and offsets), so that a retried batch is recognised and stored once, and a gap in the
 * sequence is refused with OUT_OF_ORDER_SEQUENCE. The leader checks before appending; leader and followers
 * both update it from every appended batch, so a follower that becomes leader already knows each producer.
 * It is rebuilt at start from the batch headers of the log.
 *
 * <p>One writer: the partition's append path (under the partition lock).
 */
public final class ProducerStateManager {

    /** How many recent batches per producer are kept for duplicate detection (Kafka's is 5, as in-flight). */
    static final int RETAINED_BATCHES = 5;

    /** A batch already stored. */
    public record BatchMetadata(int baseSequence, int lastSequence, long firstOffset, long lastOffset, long timestamp) {
    }

    private static final class ProducerEntry {
        short epoch;
        final ArrayDeque<BatchMetadata> batches = new ArrayDeque<>();

        int lastSequence() {
            return batches.isEmpty() ? -1 : batches.peekLast().lastSequence();
        }
    }

    private final Map<Long, ProducerEntry> producers = new HashMap<>();

    /** What the check says about one batch before it is appended. */
    public record Check(ErrorCode error, String message, BatchMetadata duplicateOf) {
        static final Check OK = new Check(ErrorCode.NONE, null, null);

        public boolean isDuplicate() {
            return duplicateOf != null;
        }
    }

    /** Checks a batch a leader is about to append; never changes state. */
    public Check check(RecordBatch batch) {
        long producerId = batch.producerId();
        if (producerId < 0) {
            return Check.OK;
        }
        ProducerEntry entry = producers.get(producerId);
        short epoch = batch.producerEpoch();
        int baseSeq = batch.baseSequence();
        if (entry == null) {
            if (baseSeq != 0) {
                return new Check(ErrorCode.OUT_OF_ORDER_SEQUENCE, "producer " + producerId
                    + " is unknown to this partition and its first batch starts at sequence " + baseSeq + ", not 0", null);
            }
            return Check.OK;
        }
        if (epoch < entry.epoch) {
            return new Check(ErrorCode.INVALID_PRODUCER_EPOCH, "producer " + producerId + " epoch " + epoch
                + " is older than the current epoch " + entry.epoch, null);
        }
        if (epoch > entry.epoch) {
            if (baseSeq != 0) {
                return new Check(ErrorCode.OUT_OF_ORDER_SEQUENCE, "producer " + producerId + " bumped its epoch to "
                    + epoch + " but starts at sequence " + baseSeq + ", not 0", null);
            }
            return Check.OK;
        }
        for (BatchMetadata stored : entry.batches) {
            if (stored.baseSequence() == baseSeq && stored.lastSequence() == batch.lastSequence()) {
                return new Check(ErrorCode.DUPLICATE_SEQUENCE, null, stored);
            }
        }
        int expected = nextSequence(entry.lastSequence());
        if (baseSeq != expected) {
            return new Check(ErrorCode.OUT_OF_ORDER_SEQUENCE, "producer " + producerId + " sent sequence " + baseSeq
                + " but " + expected + " was expected", null);
        }
        return Check.OK;
    }

    private static int nextSequence(int last) {
        return last == Integer.MAX_VALUE ? 0 : last + 1;
    }

    /** Records a batch that is now in the log (leader after its check, follower as it replicates, recovery). */
    public void update(RecordBatch batch, long firstOffset, long lastOffset) {
        long producerId = batch.producerId();
        if (producerId < 0) {
            return;
        }
        ProducerEntry entry = producers.computeIfAbsent(producerId, id -> new ProducerEntry());
        if (batch.producerEpoch() != entry.epoch) {
            entry.epoch = batch.producerEpoch();
            entry.batches.clear();
        }
        entry.batches.addLast(new BatchMetadata(batch.baseSequence(), batch.lastSequence(), firstOffset, lastOffset,
            batch.maxTimestamp()));
        while (entry.batches.size() > RETAINED_BATCHES) {
            entry.batches.removeFirst();
        }
    }

    /** Forgets batches at or above {@code offset} (the log was truncated there). */
    public void truncateTo(long offset) {
        Iterator<Map.Entry<Long, ProducerEntry>> it = producers.entrySet().iterator();
        while (it.hasNext()) {
            ProducerEntry entry = it.next().getValue();
            entry.batches.removeIf(b -> b.lastOffset() >= offset);
            if (entry.batches.isEmpty()) {
                it.remove();
            }
        }
    }

    public void clear() {
        producers.clear();
    }

    public int producerCount() {
        return producers.size();
    }
}
