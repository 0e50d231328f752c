package io.raftline.client.consumer.internals.group;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.internals.net.GrpcErrors;
import io.raftline.protocol.group.GroupServiceGrpc;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** A gRPC channel to one broker's GroupService; calls block with a deadline and fail with SDK exceptions. */
final class GroupChannel implements AutoCloseable {

    private final String address;
    private final ManagedChannel channel;
    private final GroupServiceGrpc.GroupServiceBlockingStub stub;

    GroupChannel(String host, int port, String clientId) {
        this.address = host + ":" + port;
        this.channel = NettyChannelBuilder.forAddress(host, port).usePlaintext()
            .userAgent(clientId.isEmpty() ? "raftline-consumer" : "raftline-consumer/" + clientId).build();
        this.stub = GroupServiceGrpc.newBlockingStub(channel);
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
