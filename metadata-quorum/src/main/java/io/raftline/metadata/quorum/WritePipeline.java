package io.raftline.metadata.quorum;

import io.raftline.metadata.controller.ControllerResult;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.metadata.MetadataRecord;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pipelined controller writes: several entries in flight at once, each decision made on a projected image (the
 * committed image plus the records of every entry still in flight), every answer sent only after its own entry and
 * all earlier ones committed, in the order the decisions were made.
 *
 * <p>Why: with one append at a time, every write waits for the previous one's whole Raft round trip (fsyncs and
 * replication); heartbeats, AlterPartition and admin writes from many clients then queue behind each other.
 *
 * <p>Exclusive decisions are made alone on the committed image, with nothing else in flight, and nothing is decided
 * after them until they commit. They are the decisions whose outcome depends on the Raft index the log assigns,
 * which a projection cannot know: a broker registration (its epoch is the index of its entry) and the controlled
 * shutdown handshake (it names the index a stopping broker must have seen).
 *
 * <p>On a failed append, or when the owner calls {@link #reset}, every entry in flight and every waiting decision
 * fails with {@link NotControllerException}, the projection is dropped, and later decisions are made on the
 * committed image again. Appends that still commit after a reset change the committed image like any entry.
 *
 * <p>One writer: every method runs on the owner's single event thread ({@code thread}); append completions are
 * handed back to it.
 */
final class WritePipeline {

    private static final Logger LOG = LoggerFactory.getLogger(WritePipeline.class);

    /** Appends the records as one Raft entry; completes with its index once committed and applied here. */
    interface Appender {
        CompletableFuture<Long> append(List<MetadataRecord> records);
    }

    private final Supplier<MetadataImage> committed;
    private final Appender appender;
    private final Executor thread;
    private final int maxInFlight;
    private final Runnable onFailure;
    private final ArrayDeque<Waiting<?>> waiting = new ArrayDeque<>();
    private final ArrayDeque<Slot<?>> inFlight = new ArrayDeque<>();
    /** Committed image plus every in-flight entry's records; null when nothing is in flight. */
    private MetadataImage projected;
    private boolean exclusiveInFlight;
    /** Bumped by every reset: completions of appends made before it are ignored (their futures already failed). */
    private long generation;
    /** Index of the last entry answered: answers must come in strictly increasing index order. */
    private long lastIndex;

    /**
     * @param committed the committed, applied image (the state machine's)
     * @param thread    the owner's event thread, where completions run
     * @param onFailure told (on the event thread) after a failed append reset the pipeline
     */
    /**
     * The most bytes of records one decision may append as its entry (Kafka bounds a KRaft batch to 8 MiB alike): a
     * 40 MiB ACL name made the leader lose its leadership while appending it, again at each retry.
     */
    static final int MAX_ENTRY_BYTES = 8 << 20;

    WritePipeline(Supplier<MetadataImage> committed, Appender appender, Executor thread, int maxInFlight, Runnable onFailure) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be >= 1, got " + maxInFlight);
        }
        this.committed = committed;
        this.appender = appender;
        this.thread = thread;
        this.maxInFlight = maxInFlight;
        this.onFailure = onFailure;
    }

    private record Waiting<T>(Function<MetadataImage, ControllerResult<T>> decision, boolean exclusive,
                              CompletableFuture<ActiveController.Committed<T>> future) {
    }

    /** An entry in flight (records appended) or an answer without records waiting for its predecessors. */
    private static final class Slot<T> {
        final CompletableFuture<ActiveController.Committed<T>> future;
        final boolean hasRecords;
        final Function<MetadataImage, T> response;
        /** The projected image after this entry; null for an exclusive entry (answered from the committed image). */
        final MetadataImage after;
        final T answer;
        boolean done;
        long index;

        Slot(CompletableFuture<ActiveController.Committed<T>> future, Function<MetadataImage, T> response, MetadataImage after) {
            this.future = future;
            this.hasRecords = true;
            this.response = response;
            this.after = after;
            this.answer = null;
        }

        Slot(CompletableFuture<ActiveController.Committed<T>> future, T answer) {
            this.future = future;
            this.hasRecords = false;
            this.response = null;
            this.after = null;
            this.answer = answer;
            this.done = true;
        }

        void answer(MetadataImage committedImage, long lastIndex) {
            try {
                if (hasRecords) {
                    future.complete(new ActiveController.Committed<>(response.apply(after != null ? after : committedImage), index));
                } else {
                    future.complete(new ActiveController.Committed<>(answer, lastIndex));
                }
            } catch (RuntimeException e) {
                future.completeExceptionally(e);
            }
        }
    }

    /**
     * Queues a decision (event thread only). It is made once the pipeline has room (and, if exclusive, is empty);
     * the future completes after its records, and every earlier decision's, committed.
     */
    <T> CompletableFuture<ActiveController.Committed<T>> submit(Function<MetadataImage, ControllerResult<T>> decision,
                                                                boolean exclusive) {
        CompletableFuture<ActiveController.Committed<T>> f = new CompletableFuture<>();
        waiting.add(new Waiting<>(decision, exclusive, f));
        pump();
        return f;
    }

    /** Entries appended and not yet answered, plus answers waiting for them. */
    int inFlight() {
        return inFlight.size();
    }

    /** Decisions not made yet (the pipeline is full, or waits for an exclusive decision). */
    int waiting() {
        return waiting.size();
    }

    /** Fails everything in flight or waiting with {@code cause} and drops the projection. */
    void reset(NotControllerException cause) {
        generation++;
        projected = null;
        exclusiveInFlight = false;
        ArrayDeque<Slot<?>> slots = new ArrayDeque<>(inFlight);
        ArrayDeque<Waiting<?>> queued = new ArrayDeque<>(waiting);
        inFlight.clear();
        waiting.clear();
        slots.forEach(s -> s.future.completeExceptionally(cause));
        queued.forEach(w -> w.future.completeExceptionally(cause));
    }

    private void pump() {
        while (!waiting.isEmpty()) {
            Waiting<?> next = waiting.peek();
            boolean room = next.exclusive() ? inFlight.isEmpty() : inFlight.size() < maxInFlight;
            if (exclusiveInFlight || !room) {
                return;
            }
            waiting.poll();
            start(next);
        }
    }

    private <T> void start(Waiting<T> w) {
        MetadataImage image = projected != null ? projected : committed.get();
        ControllerResult<T> result;
        MetadataImage after;
        try {
            result = w.decision().apply(image);
            long bytes = result.records().stream().mapToLong(r -> r.getSerializedSize()).sum();
            if (bytes > MAX_ENTRY_BYTES) {
                w.future().completeExceptionally(new RequestTooLargeException("the change would write " + bytes
                    + " bytes of metadata in one entry; one request may write at most " + MAX_ENTRY_BYTES));
                return;
            }
            if (result.records().isEmpty()) {
                T answer = result.response().apply(image);
                if (inFlight.isEmpty()) {
                    w.future().complete(new ActiveController.Committed<>(answer, 0));
                } else {
                    inFlight.add(new Slot<>(w.future(), answer));
                }
                return;
            }
            // The projection's index stays the committed one: the log assigns the real index at append.
            after = w.exclusive() ? null : MetadataDelta.replayAll(image, image.index(), result.records()).image();
        } catch (RuntimeException e) {
            w.future().completeExceptionally(e);
            return;
        }
        Slot<T> slot = new Slot<>(w.future(), result.response(), after);
        long gen = generation;
        CompletableFuture<Long> appended;
        try {
            appended = appender.append(result.records());
        } catch (RuntimeException e) {
            appended = CompletableFuture.failedFuture(e);
        }
        inFlight.add(slot);
        if (w.exclusive()) {
            exclusiveInFlight = true;
        } else {
            projected = after;
        }
        appended.whenComplete((index, err) -> {
            try {
                thread.execute(() -> appended(gen, slot, index, err));
            } catch (RejectedExecutionException e) {
                slot.future.completeExceptionally(new NotControllerException("the controller is shutting down", e));
            }
        });
    }

    private void appended(long gen, Slot<?> slot, Long index, Throwable err) {
        if (gen != generation) {
            return;
        }
        if (err != null) {
            Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
            reset(new NotControllerException("write failed: " + cause, cause));
            onFailure.run();
            return;
        }
        if (committed.get().index() < index) {
            // The leader replies after applying; anything else is a broken invariant of the glue.
            broken(slot, "entry " + index + " committed but the image is at " + committed.get().index());
            return;
        }
        slot.index = index;
        slot.done = true;
        drain();
    }

    /** A broken invariant: fail loudly (the slot gets the error, the log says it) and start over from the log. */
    private void broken(Slot<?> slot, String message) {
        IllegalStateException e = new IllegalStateException(message);
        LOG.error("controller write pipeline: {}", message, e);
        slot.future.completeExceptionally(e);
        reset(new NotControllerException("controller write pipeline broken: " + message, e));
        onFailure.run();
    }

    /** Answers, in decision order, every slot whose entry and predecessors have committed. */
    private void drain() {
        MetadataImage now = committed.get();
        while (!inFlight.isEmpty() && inFlight.peek().done) {
            Slot<?> head = inFlight.poll();
            if (head.hasRecords) {
                if (head.index <= lastIndex) {
                    // One thread appends in decision order, so the log's order is the decision order.
                    broken(head, "entry at " + head.index + " was decided after the one at " + lastIndex);
                    return;
                }
                lastIndex = head.index;
            }
            head.answer(now, lastIndex);
        }
        if (inFlight.isEmpty()) {
            projected = null;
            exclusiveInFlight = false;
        }
        pump();
    }
}
