package io.raftline.broker.rpc;

import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;

/** Test calls' answers as futures. */
public final class StreamAnswers {

    private StreamAnswers() {
    }

    /**
     * An observer that completes {@code answer} with the first message, or exceptionally with the call's failure or
     * with its end before any message.
     */
    public static <T> StreamObserver<T> into(CompletableFuture<T> answer) {
        return new StreamObserver<>() {
            @Override
            public void onNext(T value) {
                answer.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                answer.completeExceptionally(new IllegalStateException("the stream ended without an answer"));
            }
        };
    }
}
