package io.raftline.broker.rpc;

import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.AllocateProducerIdsRequest;
import io.raftline.protocol.controller.AllocateProducerIdsResponse;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Hands out producer ids for idempotent producers from blocks the controller allocates to this broker, so ids
 * are unique across the cluster and survive restarts (the quorum remembers which blocks it gave out).
 */
public final class ProducerIdManager {

    private final Function<AllocateProducerIdsRequest, CompletableFuture<AllocateProducerIdsResponse>> allocate;
    private final IntSupplier brokerId;
    private final LongSupplier brokerEpoch;
    private long next;
    private long end;
    private CompletableFuture<Void> refill;

    public ProducerIdManager(Function<AllocateProducerIdsRequest, CompletableFuture<AllocateProducerIdsResponse>> allocate,
                             IntSupplier brokerId, LongSupplier brokerEpoch) {
        this.allocate = allocate;
        this.brokerId = brokerId;
        this.brokerEpoch = brokerEpoch;
    }

    /** The next unused producer id, fetching a new block from the controller when this one is used up. */
    public CompletableFuture<Long> next() {
        CompletableFuture<Void> waitFor;
        synchronized (this) {
            if (next < end) {
                return CompletableFuture.completedFuture(next++);
            }
            if (refill == null) {
                refill = allocate.apply(AllocateProducerIdsRequest.newBuilder()
                        .setBrokerId(brokerId.getAsInt()).setBrokerEpoch(brokerEpoch.getAsLong()).build())
                    .thenAccept(this::onBlock)
                    .whenComplete((v, e) -> {
                        synchronized (this) {
                            refill = null;
                        }
                    });
            }
            waitFor = refill;
        }
        return waitFor.thenCompose(v -> next());
    }

    private synchronized void onBlock(AllocateProducerIdsResponse response) {
        if (response.getError().getCode() != ErrorCode.NONE) {
            throw new IllegalStateException(response.getError().getCode() + ": " + response.getError().getMessage());
        }
        next = response.getFirstProducerId();
        end = next + response.getBlockSize();
    }
}
