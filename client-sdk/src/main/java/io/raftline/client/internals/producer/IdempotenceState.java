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

    @Override
    public boolean mayDrain(TopicPartition tp, ProducerBatch first) {
        if (!hasProducerId()) {
            return false;
        }
        if (first.retry || first.hasSequence()) {
            TreeMap<Integer, ProducerBatch> m = inFlight.get(tp);
            return m == null || m.isEmpty();
        }
        return true;
    }

    @Override
    public void onDrained(ProducerBatch batch) {
        if (!batch.hasSequence() || batch.producerEpoch != epoch || batch.producerId != producerId) {
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
     * Whether an OUT_OF_ORDER_SEQUENCE for {@code batch} is explained by an earlier batch of the same partition that
     * is itself being retried or still in flight (then it is retriable), rather than by a real gap.
     */
    public boolean earlierSequencePending(ProducerBatch batch, Iterable<ProducerBatch> queued) {
        TreeMap<Integer, ProducerBatch> m = inFlight.get(batch.tp);
        if (m != null && !m.headMap(batch.baseSequence).isEmpty()) {
            return true;
        }
        for (ProducerBatch q : queued) {
            if (q.hasSequence() && q.baseSequence < batch.baseSequence) {
                return true;
            }
        }
        return false;
    }
}
