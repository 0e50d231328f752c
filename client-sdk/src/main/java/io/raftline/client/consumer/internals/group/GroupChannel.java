package io.raftline.client.consumer.internals.group;

import io.raftline.grpc.TransportSecurity;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.internals.net.GrpcErrors;
import io.raftline.protocol.group.FindCoordinatorRequest;
import io.raftline.protocol.group.FindCoordinatorResponse;
import io.raftline.protocol.group.GroupServiceGrpc;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * A gRPC channel to one broker's GroupService; calls block with a deadline, or return a future, and fail with SDK
 * exceptions.
 */
final class GroupChannel implements AutoCloseable {

    private final String address;
    private final ManagedChannel channel;
    private final GroupServiceGrpc.GroupServiceBlockingStub stub;
    private final GroupServiceGrpc.GroupServiceStub asyncStub;

    GroupChannel(String host, int port, String clientId, TransportSecurity security) {
        this.address = host + ":" + port;
        this.channel = security.secure(NettyChannelBuilder.forAddress(host, port))
            .userAgent(clientId.isEmpty() ? "raftline-consumer" : "raftline-consumer/" + clientId).build();
        this.stub = GroupServiceGrpc.newBlockingStub(channel);
        this.asyncStub = GroupServiceGrpc.newStub(channel);
    }

    /**
     * FindCoordinator without blocking: the lookup goes on (until {@code timeoutMs}) when the caller stops waiting, so
     * a consumer polling with a short timeout finds its coordinator over several polls instead of never. The future
     * fails with an SDK exception.
     */
    CompletableFuture<FindCoordinatorResponse> findCoordinator(FindCoordinatorRequest req, long timeoutMs) {
        return callAsync((s, o) -> s.findCoordinator(req, o), "FindCoordinator", timeoutMs);
    }

    /**
     * One call without blocking, e.g. {@code ch.callAsync((s, o) -> s.joinGroup(req, o), "JoinGroup", timeoutMs)}: the
     * future completes with the answer, or fails with an SDK exception (unreachable, deadline passed, channel closed).
     * Cancelling the future cancels the call.
     */
    <T> CompletableFuture<T> callAsync(BiConsumer<GroupServiceGrpc.GroupServiceStub, StreamObserver<T>> call, String what,
                                       long timeoutMs) {
        CompletableFuture<T> f = new CompletableFuture<>();
        try {
            call.accept(asyncStub.withDeadlineAfter(Math.max(1, timeoutMs), TimeUnit.MILLISECONDS),
                new ClientResponseObserver<Object, T>() {
                    @Override
                    public void beforeStart(ClientCallStreamObserver<Object> requestStream) {
                        f.whenComplete((v, e) -> {
                            if (f.isCancelled()) {
                                requestStream.cancel(what + " abandoned by the consumer", null);
                            }
                        });
                    }

                    @Override
                    public void onNext(T value) {
                        f.complete(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                        f.completeExceptionally(GrpcErrors.toException(t, address));
                    }

                    @Override
                    public void onCompleted() {
                        if (!f.isDone()) {
                            f.completeExceptionally(new RaftlineException(what + " to " + address + " ended without an answer"));
                        }
                    }
                });
        } catch (RuntimeException e) {
            f.completeExceptionally(GrpcErrors.toException(e, address));
        }
        return f;
    }

    String address() {
        return address;
    }

    /**
     * One call, e.g. {@code ch.call(s -> s.heartbeat(req), timeoutMs)}.
     *
     * @throws RaftlineException for a transport failure (unreachable, deadline passed)
     */
    <T> T call(Function<GroupServiceGrpc.GroupServiceBlockingStub, T> call, long timeoutMs) {
        try {
            return call.apply(stub.withDeadlineAfter(Math.max(1, timeoutMs), TimeUnit.MILLISECONDS));
        } catch (RuntimeException e) {
            throw GrpcErrors.toException(e, address);
        }
    }

    @Override
    public void close() {
        channel.shutdownNow();
    }
}
