package io.raftline.broker.replica;

import io.raftline.protocol.ErrorCode;
import io.raftline.record.RecordBatch;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Idempotent-producer state of one partition: per producer id its epoch and the last few batches
 * (sequence range and offsets), so that a retried batch is recognised and stored once, and a gap in the
 * sequence is refused with OUT_OF_ORDER_SEQUENCE. The leader checks before appending; leader and followers
 * both update it from every appended batch, so a follower that becomes leader already knows each producer.
 * At start it is loaded from the newest {@link #snapshot()} beside the segments (written at each roll and at a
 * clean shutdown) and completed from the batch headers of the log after it.
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

    public void clear() {
        producers.clear();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Snapshots (the {@code <offset>.snapshot} files beside the segments)

    /** "RLPS": Raftline producer snapshot. */
    private static final int SNAPSHOT_MAGIC = 0x524c5053;
    private static final short SNAPSHOT_VERSION = 1;
    private static final int SNAPSHOT_HEADER_BYTES = 4 + 2 + 4;
    private static final int BATCH_BYTES = 4 + 4 + 8 + 8 + 8;

    /**
     * The whole state as bytes: magic (int), version (short), CRC32C of everything after it (int), producer count
     * (int), then per producer: id (long), epoch (short), batch count (int), per batch: base and last sequence (int,
     * int), first and last offset (long, long), max timestamp (long). Big-endian.
     */
    public byte[] snapshot() {
        int size = SNAPSHOT_HEADER_BYTES + 4;
        for (ProducerEntry e : producers.values()) {
            size += 8 + 2 + 4 + e.batches.size() * BATCH_BYTES;
        }
        ByteBuffer buf = ByteBuffer.allocate(size);
        buf.putInt(SNAPSHOT_MAGIC).putShort(SNAPSHOT_VERSION).putInt(0).putInt(producers.size());
        for (Map.Entry<Long, ProducerEntry> e : producers.entrySet()) {
            buf.putLong(e.getKey()).putShort(e.getValue().epoch).putInt(e.getValue().batches.size());
            for (BatchMetadata b : e.getValue().batches) {
                buf.putInt(b.baseSequence()).putInt(b.lastSequence()).putLong(b.firstOffset()).putLong(b.lastOffset())
                    .putLong(b.timestamp());
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), SNAPSHOT_HEADER_BYTES, size - SNAPSHOT_HEADER_BYTES);
        buf.putInt(6, (int) crc.getValue());
        return buf.array();
    }

    /**
     * Replaces the state with a snapshot's. A snapshot that is torn, corrupt or of an unknown version is refused
     * with IllegalArgumentException and changes nothing (the caller falls back to an older one or to the log).
     */
    public void loadSnapshot(byte[] content) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        if (content.length < SNAPSHOT_HEADER_BYTES + 4 || buf.getInt() != SNAPSHOT_MAGIC) {
            throw new IllegalArgumentException("not a producer snapshot (" + content.length + " bytes)");
        }
        short version = buf.getShort();
        if (version != SNAPSHOT_VERSION) {
            throw new IllegalArgumentException("producer snapshot version " + version + " is not " + SNAPSHOT_VERSION);
        }
        int stored = buf.getInt();
        CRC32C crc = new CRC32C();
        crc.update(content, SNAPSHOT_HEADER_BYTES, content.length - SNAPSHOT_HEADER_BYTES);
        if ((int) crc.getValue() != stored) {
            throw new IllegalArgumentException("producer snapshot checksum mismatch");
        }
        Map<Long, ProducerEntry> loaded = new HashMap<>();
        try {
            int count = buf.getInt();
            for (int i = 0; i < count; i++) {
                long id = buf.getLong();
                ProducerEntry entry = new ProducerEntry();
                entry.epoch = buf.getShort();
                int batches = buf.getInt();
                for (int j = 0; j < batches; j++) {
                    entry.batches.addLast(new BatchMetadata(buf.getInt(), buf.getInt(), buf.getLong(), buf.getLong(),
                        buf.getLong()));
                }
                loaded.put(id, entry);
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("producer snapshot is shorter than its contents say", e);
        }
        if (buf.hasRemaining()) {
            throw new IllegalArgumentException("producer snapshot has " + buf.remaining() + " bytes past its contents");
        }
        producers.clear();
        producers.putAll(loaded);
    }

    /**
     * A producer this partition knows (Kafka's DescribeProducers): its epoch, the last sequence and max timestamp of
     * its newest stored batch (-1 for both when none is retained).
     */
    public record ActiveProducer(long producerId, short epoch, int lastSequence, long lastTimestamp) {
    }

    /** Every producer this partition knows, by producer id. */
    public java.util.List<ActiveProducer> activeProducers() {
        java.util.List<ActiveProducer> out = new java.util.ArrayList<>(producers.size());
        new java.util.TreeMap<>(producers).forEach((id, e) -> out.add(new ActiveProducer(id, e.epoch, e.lastSequence(),
            e.batches.isEmpty() ? -1 : e.batches.peekLast().timestamp())));
        return out;
    }

    /** The epoch and last sequence of a producer, for tests and tools; empty if unknown. */
    public java.util.Optional<int[]> epochAndLastSequence(long producerId) {
        ProducerEntry e = producers.get(producerId);
        return e == null ? java.util.Optional.empty() : java.util.Optional.of(new int[] {e.epoch, e.lastSequence()});
    }

    public int producerCount() {
        return producers.size();
    }
}
