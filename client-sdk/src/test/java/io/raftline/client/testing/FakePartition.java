package io.raftline.client.testing;

import io.raftline.protocol.ErrorCode;
import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One partition of the fake cluster: an in-memory log of stored batches (the bytes the producer sent, with the base
 * offset and leader epoch stamped in place), the idempotent producers' last sequences, and the errors a test asked
 * to inject. Guarded by the owning {@link FakeCluster}'s lock.
 */
public final class FakePartition {

    /** A stored batch. */
    record Stored(long baseOffset, long lastOffset, byte[] bytes, long maxTimestamp) {
    }

    private record ProducerEntry(short epoch, int lastSequence, Deque<long[]> recent) {
    }

    final String topic;
    final int partition;
    int leader;
    int leaderEpoch;
    List<Integer> replicas;
    List<Integer> adding = List.of();
    List<Integer> removing = List.of();
    final List<Stored> log = new ArrayList<>();
    long logStartOffset;
    long nextOffset;
    final Deque<ErrorCode> produceErrors = new ArrayDeque<>();
    /** Errors answered for the next produces after their batches were stored (a leader that lost the acks). */
    final Deque<ErrorCode> afterAppendErrors = new ArrayDeque<>();
    final Deque<ErrorCode> fetchErrors = new ArrayDeque<>();
    int corruptNextFetches;
    int truncateNextFetchesBy;
    /** Fetch answers starting at or after this offset are corrupted ({@code corruptFetchesFromCount} of them). */
    long corruptFetchesFrom = Long.MAX_VALUE;
    int corruptFetchesFromCount;
    /** The fetch offset of every fetch this partition's leader answered, in order. */
    final List<Long> fetchOffsets = new ArrayList<>();
    final List<Integer> receivedBatchRecordCounts = new ArrayList<>();
    private final Map<Long, ProducerEntry> producers = new HashMap<>();

    FakePartition(String topic, int partition, int leader, List<Integer> replicas) {
        this.topic = topic;
        this.partition = partition;
        this.leader = leader;
        this.replicas = List.copyOf(replicas);
    }

    /** The result of an append: an error code, or the base offset. */
    record AppendResult(ErrorCode error, String message, long baseOffset) {
    }

    /** Appends the batches of one produce request, enforcing idempotent sequences. */
    AppendResult append(ByteBuffer batches) {
        long firstBase = -1;
        for (RecordBatch b : Records.batches(batches)) {
            receivedBatchRecordCounts.add(b.recordCount());
            long pid = b.producerId();
            if (pid >= 0) {
                ProducerEntry e = producers.get(pid);
                int seq = b.baseSequence();
                if (e != null && b.producerEpoch() < e.epoch()) {
                    return new AppendResult(ErrorCode.INVALID_PRODUCER_EPOCH, "epoch " + b.producerEpoch() + " < " + e.epoch(), -1);
                }
                boolean fresh = e == null || b.producerEpoch() > e.epoch();
                if (!fresh) {
                    for (long[] r : e.recent()) {
                        if (r[0] == seq) {
                            return new AppendResult(ErrorCode.DUPLICATE_SEQUENCE, "duplicate", r[1]);
                        }
                    }
                }
                int expected = fresh ? 0 : e.lastSequence() + 1;
                if (seq != expected) {
                    return new AppendResult(ErrorCode.OUT_OF_ORDER_SEQUENCE, "expected sequence " + expected + " got " + seq, -1);
                }
                Deque<long[]> recent = fresh ? new ArrayDeque<>() : e.recent();
                recent.addLast(new long[]{seq, nextOffset});
                while (recent.size() > 5) {
                    recent.removeFirst();
                }
                producers.put(pid, new ProducerEntry(b.producerEpoch(), b.lastSequence(), recent));
            }
            ByteBuffer copy = ByteBuffer.wrap(toArray(b.slice()));
            RecordBatch stored = RecordBatch.view(copy, 0);
            stored.setBaseOffset(nextOffset);
            stored.setPartitionLeaderEpoch(leaderEpoch);
            log.add(new Stored(nextOffset, stored.lastOffset(), copy.array(), stored.maxTimestamp()));
            if (firstBase < 0) {
                firstBase = nextOffset;
            }
            nextOffset = stored.lastOffset() + 1;
        }
        return new AppendResult(ErrorCode.NONE, "", firstBase);
    }

    /** Whole stored batches from the one holding {@code offset}, up to {@code maxBytes} (at least one batch). */
    byte[] read(long offset, int maxBytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Stored s : log) {
            if (s.lastOffset() < offset) {
                continue;
            }
            if (out.size() > 0 && out.size() + s.bytes().length > maxBytes) {
                break;
            }
            out.writeBytes(s.bytes());
        }
        return out.toByteArray();
    }

    /** The first offset whose record timestamp is at or after {@code ts}, with that timestamp; null if none. */
    long[] offsetForTime(long ts) {
        for (Stored s : log) {
            if (s.maxTimestamp() < ts) {
                continue;
            }
            for (Record r : RecordBatch.view(ByteBuffer.wrap(s.bytes()), 0).records()) {
                if (r.timestamp() >= ts) {
                    return new long[]{r.offset(), r.timestamp()};
                }
            }
        }
        return null;
    }

    /** Deletes whole batches below {@code offset} (retention), moving the log start. */
    void truncateBefore(long offset) {
        log.removeIf(s -> s.lastOffset() < offset);
        logStartOffset = log.isEmpty() ? nextOffset : log.get(0).baseOffset();
    }

    /** Deletes the records below {@code offset} on request: the log start moves there, whole batches below go. */
    void deleteRecordsBefore(long offset) {
        logStartOffset = Math.max(logStartOffset, offset);
        log.removeIf(s -> s.lastOffset() < logStartOffset);
    }

    long sizeBytes() {
        long n = 0;
        for (Stored s : log) {
            n += s.bytes().length;
        }
        return n;
    }

    private static byte[] toArray(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }
}
