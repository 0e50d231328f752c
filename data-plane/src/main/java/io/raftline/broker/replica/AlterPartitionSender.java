package io.raftline.broker.replica;

import io.raftline.protocol.controller.AlterPartitionRequest;
import io.raftline.protocol.controller.AlterPartitionResponse;
import java.util.concurrent.CompletableFuture;

/** Sends ISR changes to the active controller (the broker's controller channel in production). */
@FunctionalInterface
public interface AlterPartitionSender {

    CompletableFuture<AlterPartitionResponse> send(AlterPartitionRequest request);
}
