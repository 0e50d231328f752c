package io.raftline.client.internals.producer;

import io.raftline.client.producer.RecordMetadata;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future {@code send} returns: completed by the producer's I/O thread when the record's batch is acknowledged
 * or fails. It cannot be cancelled: once handed to the producer, a record is sent.
 */
public final class FutureRecordMetadata implements Future<RecordMetadata> {

    private final CompletableFuture<RecordMetadata> delegate;

    /** Wraps a future the producer completes. */
    public FutureRecordMetadata(CompletableFuture<RecordMetadata> delegate) {
        this.delegate = delegate;
    }

    /** A future that already failed (a record refused before it was buffered). */
    public static FutureRecordMetadata failed(Exception e) {
        return new FutureRecordMetadata(CompletableFuture.failedFuture(e));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return false;
    }

    @Override
    public boolean isCancelled() {
        return false;
    }

    @Override
    public boolean isDone() {
        return delegate.isDone();
    }

    @Override
    public RecordMetadata get() throws InterruptedException, ExecutionException {
        return delegate.get();
    }

    @Override
    public RecordMetadata get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        return delegate.get(timeout, unit);
    }

    /** The underlying future, for composition. */
    public CompletableFuture<RecordMetadata> toCompletableFuture() {
        return delegate;
    }
}
