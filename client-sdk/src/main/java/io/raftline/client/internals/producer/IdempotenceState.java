package io.raftline.client.internals.producer;

import io.raftline.client.common.TopicPartition;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The idempotent producer's bookkeeping: producer id and epoch, the next sequence per partition, and the sequenced
 * batches in flight. Owned by the sender thread; nothing else touches it.
 *
 * <p>Ordering rules. A fresh batch gets the partition's next sequence when drained; several may be in flight. When
 * one fails retriably, it and every later batch of that partition come back (the broker refuses a sequence after a
 * gap) and are re-queued in sequence order; they are then re-sent one at a time, each only when nothing of that
 * partition is in flight, so the broker sees the sequences in order again. A batch that finally fails leaves a gap:
 * the producer then bumps its epoch (InitProducerId with its current id and epoch), which restarts every
 * partition's sequence at 0, once nothing is in flight.
 *
 * <p>No batch is stored twice. A batch that came back with an error may be stored all the same (its leader appended
 * it, then timed out waiting for its followers, lost the leadership, or its answer was lost), so it keeps its
 * producer id, epoch and sequence across an epoch bump: sent again, its leader recognises it as a duplicate, or
 * refuses it as out of order, which says it never stored that sequence. Only then does the batch get a new sequence
 * (of the current epoch, bumping it first if the gap is in the current one), and so does every later batch of its
 * partition (a successor of a sequence never stored was not stored either). A partition's fresh batches are not sent
 * while a batch of an older epoch is in flight on it, so its leader sees the old epoch end before the new one starts.
 */
public final class IdempotenceState implements RecordAccumulator.DrainGate {

    private long producerId = -1;
    private short epoch = -1;
    private boolean epochBumpNeeded;
    private final Map<TopicPartition, Integer> nextSequence = new HashMap<>();
    private final Map<TopicPartition, TreeMap<Integer, ProducerBatch>> inFlight = new HashMap<>();

    /** Whether a producer id is held and no epoch bump is pending. */
    public boolean hasProducerId() {
        return producerId >= 0 && !epochBumpNeeded;
    }

    /** The producer id, -1 before InitProducerId. */
    public long producerId() {
        return producerId;
    }

    /** The producer epoch. */
    public short epoch() {
        return epoch;
    }

    /** Whether a gap was left and the epoch must be bumped before sending more. */
    public boolean epochBumpNeeded() {
        return epochBumpNeeded;
    }

    /** Records the id and epoch from InitProducerId and restarts every sequence at 0. */
    public void setProducerIdAndEpoch(long id, short newEpoch) {
        this.producerId = id;
        this.epoch = newEpoch;
        this.epochBumpNeeded = false;
        nextSequence.clear();
    }

    /** Asks for an epoch bump: a sequenced batch was abandoned. */
    public void requestEpochBump() {
        epochBumpNeeded = true;
    }

    /** Whether no sequenced batch is in flight on any partition. */
    public boolean nothingInFlight() {
        for (TreeMap<Integer, ProducerBatch> m : inFlight.values()) {
            if (!m.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** Whether the batch carries the current producer id and epoch. */
    private boolean stampedNow(ProducerBatch batch) {
        return batch.producerId == producerId && batch.producerEpoch == epoch;
    }

    private static boolean sameStamp(ProducerBatch a, ProducerBatch b) {
        return a.producerId == b.producerId && a.producerEpoch == b.producerEpoch;
    }

    @Override
    public boolean mayDrain(TopicPartition tp, ProducerBatch first) {
        if (!hasProducerId()) {
            return false;
        }
        TreeMap<Integer, ProducerBatch> m = inFlight.get(tp);
        if (m == null || m.isEmpty()) {
            return true;
        }
        if (first.retry || first.hasSequence()) {
            return false;
        }
        for (ProducerBatch b : m.values()) {
            if (!stampedNow(b)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void onDrained(ProducerBatch batch) {
        // an older epoch's batch behind one this partition already sent in the current epoch: its predecessor was
        // refused as out of order, so it was not stored either
        boolean behindNewEpoch = batch.hasSequence() && !stampedNow(batch) && nextSequence.containsKey(batch.tp);
        if (batch.needsSequence() || behindNewEpoch) {
            int seq = nextSequence.getOrDefault(batch.tp, 0);
            batch.stampProducerState(producerId, epoch, seq);
            nextSequence.put(batch.tp, (int) (((long) seq + batch.recordCount()) & Integer.MAX_VALUE));
        }
        inFlight.computeIfAbsent(batch.tp, k -> new TreeMap<>()).put(batch.baseSequence, batch);
    }

    /** The batch came back (whatever the outcome). */
    public void onReturned(ProducerBatch batch) {
        TreeMap<Integer, ProducerBatch> m = inFlight.get(batch.tp);
        if (m != null) {
            m.remove(batch.baseSequence, batch);
        }
    }

    /**
     * Whether an OUT_OF_ORDER_SEQUENCE for {@code batch} is explained by an earlier batch of the same partition and
     * epoch that is itself being retried or still in flight (then it is retriable as it is), rather than by a real gap.
     */
    public boolean earlierSequencePending(ProducerBatch batch, Iterable<ProducerBatch> queued) {
        TreeMap<Integer, ProducerBatch> m = inFlight.get(batch.tp);
        if (m != null) {
            for (ProducerBatch b : m.headMap(batch.baseSequence).values()) {
                if (sameStamp(b, batch)) {
                    return true;
                }
            }
        }
        for (ProducerBatch q : queued) {
            if (q.hasSequence() && sameStamp(q, batch) && q.baseSequence < batch.baseSequence) {
                return true;
            }
        }
        return false;
    }

    /**
     * The leader refused {@code batch}'s sequence as out of order with nothing earlier pending: it never stored it.
     * The batch gets a new sequence when drained next; a gap in the current epoch needs a new epoch first (a batch of
     * an older one just moves to the current epoch).
     */
    public void sequenceRefused(ProducerBatch batch) {
        batch.sequenceRefused();
        if (stampedNow(batch)) {
            epochBumpNeeded = true;
        }
    }
}
