package io.raftline.broker.group;

import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.HostPort;
import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A working in-memory {@code __consumer_offsets}: one list of batches per partition with offsets assigned as a leader
 * would, shared by every coordinator of a test (as if replicated). Appends complete at once unless held; the next
 * append can be made to fail.
 */
public final class InMemoryOffsetsTopic implements OffsetsTopic {

    private final int partitionCount;
    private final Map<Integer, List<ByteBuffer>> logs = new HashMap<>();
    private final Map<Integer, Long> nextOffsets = new HashMap<>();
    private final Map<Integer, Integer> leaders = new HashMap<>();
    private final Map<Integer, HostPort> endpoints = new HashMap<>();
    private final Map<String, Long> highWatermarks = new HashMap<>();
    private final Queue<Runnable> held = new ArrayDeque<>();
    private boolean exists = true;
    private boolean holdAppends;
    private ErrorCode failNext;
    private int ensureExistsCalls;

    public InMemoryOffsetsTopic(int partitionCount) {
        this.partitionCount = partitionCount;
    }

    @Override
    public int partitionCount() {
        return partitionCount;
    }

    @Override
    public synchronized boolean exists() {
        return exists;
    }

    synchronized void setExists(boolean exists) {
        this.exists = exists;
    }

    @Override
    public synchronized CompletableFuture<Void> ensureExists() {
        ensureExistsCalls++;
        exists = true;
        return CompletableFuture.completedFuture(null);
    }

    synchronized int ensureExistsCalls() {
        return ensureExistsCalls;
    }

    public synchronized void setLeader(int partition, int brokerId) {
        leaders.put(partition, brokerId);
    }

    synchronized void setEndpoint(int brokerId, String host, int port) {
        endpoints.put(brokerId, HostPort.newBuilder().setHost(host).setPort(port).build());
    }

    synchronized void setHighWatermark(String topic, int partition, long hw) {
        highWatermarks.put(topic + "-" + partition, hw);
    }

    @Override
    public synchronized OptionalInt leaderOf(int partition) {
        Integer l = leaders.get(partition);
        return l == null ? OptionalInt.empty() : OptionalInt.of(l);
    }

    @Override
    public synchronized Optional<HostPort> brokerEndpoint(int brokerId) {
        return Optional.ofNullable(endpoints.get(brokerId));
    }

    @Override
    public CompletableFuture<Long> append(int partition, ByteBuffer batch) {
        CompletableFuture<Long> f = new CompletableFuture<>();
        Runnable done;
        synchronized (this) {
            if (failNext != null) {
                ErrorCode code = failNext;
                failNext = null;
                return CompletableFuture.failedFuture(new OffsetsTopicException(code, "injected"));
            }
            ByteBuffer copy = ByteBuffer.allocate(batch.remaining());
            copy.put(batch.duplicate()).flip();
            long base = nextOffsets.getOrDefault(partition, 0L);
            RecordBatch view = RecordBatch.view(copy, 0);
            view.setBaseOffset(base);
            logs.computeIfAbsent(partition, k -> new ArrayList<>()).add(copy);
            nextOffsets.put(partition, view.nextOffset());
            done = () -> f.complete(base);
            if (holdAppends) {
                held.add(done);
                return f;
            }
        }
        done.run();
        return f;
    }

    /** Appends are stored but not acknowledged until {@link #releaseAppends()}. */
    synchronized void holdAppends() {
        holdAppends = true;
    }

    void releaseAppends() {
        List<Runnable> toRun;
        synchronized (this) {
            holdAppends = false;
            toRun = new ArrayList<>(held);
            held.clear();
        }
        toRun.forEach(Runnable::run);
    }

    /**
     * Acknowledges the held appends in the order of {@code order} (indexes into the held appends, oldest 0), as
     * completions on different threads may arrive; appends are acknowledged at once again afterwards.
     */
    void releaseAppendsInOrder(int... order) {
        List<Runnable> toRun = new ArrayList<>();
        synchronized (this) {
            List<Runnable> all = new ArrayList<>(held);
            if (order.length != all.size()) {
                throw new IllegalArgumentException(all.size() + " appends are held, " + order.length + " indexes given");
            }
            for (int i : order) {
                toRun.add(all.get(i));
            }
            holdAppends = false;
            held.clear();
        }
        toRun.forEach(Runnable::run);
    }

    synchronized void failNextAppend(ErrorCode code) {
        failNext = code;
    }

    @Override
    public void readAll(int partition, long fromOffset, Consumer<ByteBuffer> batches) {
        List<ByteBuffer> copy;
        synchronized (this) {
            copy = new ArrayList<>(logs.getOrDefault(partition, List.of()));
        }
        for (ByteBuffer b : copy) {
            if (RecordBatch.view(b, 0).lastOffset() >= fromOffset) {
                batches.accept(b.duplicate());
            }
        }
    }

    @Override
    public synchronized OptionalLong highWatermark(String topic, int partition) {
        Long hw = highWatermarks.get(topic + "-" + partition);
        return hw == null ? OptionalLong.empty() : OptionalLong.of(hw);
    }

    /** Every record of a partition, decoded, in log order. */
    List<GroupRecords.Decoded> records(int partition) {
        List<GroupRecords.Decoded> out = new ArrayList<>();
        readAll(partition, 0, buf -> {
            for (RecordBatch b : Records.batches(buf)) {
                for (Record r : b.records()) {
                    out.add(GroupRecords.decode(r));
                }
            }
        });
        return out;
    }
}
