package io.raftline.client.internals.net;

import io.raftline.grpc.TransportSecurity;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.ChannelOption;
import io.raftline.grpc.AliasingMarshaller;
import io.raftline.grpc.TransportAllocator;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import io.raftline.protocol.broker.ProduceRequest;
import io.raftline.protocol.broker.ProduceResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The client's one gRPC channel to one broker, with its long-lived Produce and Fetch streams. The channel is sized
 * for bulk data: a flow-control window of megabytes and an inbound limit above the largest fetch response, so record
 * batches travel as raw {@code bytes} in few large messages.
 */
public final class BrokerConnection implements AutoCloseable {

    /** The flow-control window: large enough that a fetch of several MB does not stall on window updates. */
    public static final int FLOW_CONTROL_WINDOW_BYTES = 8 * 1024 * 1024;

    /** Fetch with responses parsed in place: the record bytes alias the received message (no second copy). */
    private static final MethodDescriptor<FetchRequest, FetchResponse> FETCH_METHOD =
        AliasingMarshaller.aliasingResponses(BrokerServiceGrpc.getFetchMethod(), FetchResponse.getDefaultInstance());

    private final String address;
    private final ManagedChannel channel;
    private final BrokerServiceGrpc.BrokerServiceStub stub;
    private final MultiplexedStream<ProduceRequest, ProduceResponse> produce;
    private final MultiplexedStream<FetchRequest, FetchResponse> fetch;
    private final RequestMetrics metrics;

    /**
     * Opens (lazily, on first use) a plaintext channel to {@code host:port}.
     *
     * @param maxInboundBytes the largest response accepted; above the consumer's {@code fetch.max.bytes}
     */
    public BrokerConnection(String host, int port, String clientId, int maxInboundBytes) {
        this(host, port, clientId, maxInboundBytes, RequestMetrics.NONE);
    }

    /** As {@link #BrokerConnection(String, int, String, int)}, timing produce and fetch requests in {@code metrics}. */
    public BrokerConnection(String host, int port, String clientId, int maxInboundBytes, RequestMetrics metrics) {
        this(host, port, clientId, maxInboundBytes, metrics, TransportSecurity.plaintext());
    }

    /** As above, secured as {@code security} says (plaintext, or TLS verifying the broker's host name). */
    public BrokerConnection(String host, int port, String clientId, int maxInboundBytes, RequestMetrics metrics,
                            TransportSecurity security) {
        this.metrics = metrics;
        this.address = host + ":" + port;
        this.channel = security.secure(NettyChannelBuilder.forAddress(host, port))
            .flowControlWindow(FLOW_CONTROL_WINDOW_BYTES)
            .maxInboundMessageSize(maxInboundBytes)
            .withOption(ChannelOption.ALLOCATOR, TransportAllocator.channel())
            // the broker reads the client.id from here (client-id quotas)
            .userAgent(clientId == null || clientId.isEmpty() ? "raftline-client" : TransportSecurity.SDK_AGENT + clientId)
            .build();
        this.stub = BrokerServiceGrpc.newStub(channel);
        this.produce = new MultiplexedStream<>("produce to " + address, stub::produce, ProduceResponse::getCorrelationId);
        this.fetch = new MultiplexedStream<>("fetch from " + address,
            responses -> ClientCalls.asyncBidiStreamingCall(channel.newCall(FETCH_METHOD, stub.getCallOptions()), responses),
            FetchResponse::getCorrelationId);
    }

    /** {@code host:port}. */
    public String address() {
        return address;
    }

    /** Sends a produce request on the produce stream; with {@code acks=0} use {@link #produceOneWay}. */
    public CompletableFuture<ProduceResponse> produce(ProduceRequest.Builder request, long timeoutMs) {
        if (!metrics.enabled()) {
            return produce.send(id -> request.setCorrelationId(id).build(), timeoutMs);
        }
        long start = metrics.start();
        CompletableFuture<ProduceResponse> f = produce.send(id -> request.setCorrelationId(id).build(), timeoutMs);
        f.whenComplete((r, e) -> metrics.produceDone(start));
        return f;
    }

    /** Sends an acks=0 produce request: the broker sends no answer. */
    public void produceOneWay(ProduceRequest.Builder request) {
        produce.sendOneWay(id -> request.setCorrelationId(id).build());
    }

    /** Produce requests awaiting an answer on this connection. */
    public int produceInFlight() {
        return produce.inFlight();
    }

    /** Sends a fetch request on the fetch stream. */
    public CompletableFuture<FetchResponse> fetch(FetchRequest.Builder request, long timeoutMs) {
        if (!metrics.enabled()) {
            return fetch.send(id -> request.setCorrelationId(id).build(), timeoutMs);
        }
        long start = metrics.start();
        CompletableFuture<FetchResponse> f = fetch.send(id -> request.setCorrelationId(id).build(), timeoutMs);
        f.whenComplete((r, e) -> metrics.fetchDone(start));
        return f;
    }

    /**
     * A unary call, e.g. {@code conn.unary((s, o) -> s.metadata(req, o), timeoutMs)}; transport failures complete
     * the future with an SDK exception.
     */
    public <T> CompletableFuture<T> unary(BiConsumer<BrokerServiceGrpc.BrokerServiceStub, StreamObserver<T>> call, long timeoutMs) {
        CompletableFuture<T> future = new CompletableFuture<>();
        StreamObserver<T> observer = new StreamObserver<>() {
            @Override
            public void onNext(T value) {
                future.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                future.completeExceptionally(GrpcErrors.toException(t, address));
            }

            @Override
            public void onCompleted() {
                future.completeExceptionally(new io.raftline.client.errors.UnknownServerException(address + " sent no response"));
            }
        };
        try {
            call.accept(stub.withDeadlineAfter(Math.max(1, timeoutMs), TimeUnit.MILLISECONDS), observer);
        } catch (RuntimeException e) {
            future.completeExceptionally(GrpcErrors.toException(e, address));
        }
        return future;
    }

    /** Closes the streams and the channel, waiting briefly for the channel to end. */
    @Override
    public void close() {
        produce.close();
        fetch.close();
        channel.shutdown();
        try {
            if (!channel.awaitTermination(2, TimeUnit.SECONDS)) {
                channel.shutdownNow();
            }
        } catch (InterruptedException e) {
            channel.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
