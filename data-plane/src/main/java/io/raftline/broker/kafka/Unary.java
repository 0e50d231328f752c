package io.raftline.broker.kafka;

import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * The answer of one of the broker's unary service methods as a future: the Kafka listener calls the same method the
 * gRPC listener does (one implementation, two protocols) and translates what it answers.
 */
final class Unary<T> implements StreamObserver<T> {

    private final CompletableFuture<T> future = new CompletableFuture<>();
    private T value;

    static <Q, R> CompletableFuture<R> call(BiConsumer<Q, StreamObserver<R>> method, Q request) {
        Unary<R> observer = new Unary<>();
        try {
            method.accept(request, observer);
        } catch (RuntimeException e) {
            observer.future.completeExceptionally(e);
        }
        return observer.future;
    }

    @Override
    public void onNext(T v) {
        value = v;
    }

    @Override
    public void onError(Throwable t) {
        future.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
        future.complete(value);
    }
}
