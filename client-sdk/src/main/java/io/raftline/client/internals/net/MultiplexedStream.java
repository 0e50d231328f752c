package io.raftline.client.internals.net;

import io.grpc.stub.StreamObserver;
import io.raftline.client.errors.BrokerNotAvailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * One long-lived bidi stream to a broker carrying many requests, matched to responses by correlation id (the
 * broker answers in completion order). Several requests may be in flight; the caller bounds how many. When the
 * stream breaks, every pending request fails with a retriable error and the next {@link #send} opens a new stream.
 * A request whose response does not arrive within its timeout fails with a timeout; a late response is dropped.
 *
 * <p>Thread-safety: {@link #send} may be called from any thread (writes to the gRPC observer are serialized here);
 * responses complete futures on gRPC's callback threads.
 *
 * @param <Q> the request type
 * @param <R> the response type
 */
public final class MultiplexedStream<Q, R> {

    /** A request and the id it was sent with. */
    public interface Stamper<Q> {
        /** The request to send, carrying {@code correlationId}. */
        Q stamp(long correlationId);
    }

    private final String name;
    private final Function<StreamObserver<R>, StreamObserver<Q>> opener;
    private final ToLongFunction<R> correlationOf;
    private final AtomicLong nextCorrelation = new AtomicLong(1);
    private final Map<Long, CompletableFuture<R>> pending = new ConcurrentHashMap<>();
    private StreamObserver<Q> requests;
    private Session session;

    /**
     * @param name          names the stream in errors ({@code "produce to host:port"})
     * @param opener        opens the gRPC stream given the observer of responses
     * @param correlationOf reads the correlation id of a response
     */
    public MultiplexedStream(String name, Function<StreamObserver<R>, StreamObserver<Q>> opener, ToLongFunction<R> correlationOf) {
        this.name = name;
        this.opener = opener;
        this.correlationOf = correlationOf;
    }

    /** Sends a request and returns the future of its response, failing after {@code timeoutMs}. */
    public CompletableFuture<R> send(Stamper<Q> stamper, long timeoutMs) {
        long id = nextCorrelation.getAndIncrement();
        CompletableFuture<R> future = new CompletableFuture<>();
        pending.put(id, future);
        future.orTimeout(timeoutMs, TimeUnit.MILLISECONDS).whenComplete((r, e) -> pending.remove(id));
        try {
            write(stamper.stamp(id));
        } catch (RuntimeException e) {
            future.completeExceptionally(GrpcErrors.toException(e, name));
        }
        return future.exceptionallyCompose(e -> CompletableFuture.failedFuture(GrpcErrors.toException(e, name)));
    }

    /** Sends a request that gets no response (acks=0). */
    public void sendOneWay(Stamper<Q> stamper) {
        write(stamper.stamp(nextCorrelation.getAndIncrement()));
    }

    /** The number of requests awaiting a response. */
    public int inFlight() {
        return pending.size();
    }

    private synchronized void write(Q request) {
        if (requests == null) {
            session = new Session();
            requests = opener.apply(session);
        }
        requests.onNext(request);
    }

    /** Closes the stream; pending requests fail. */
    public synchronized void close() {
        if (requests != null) {
            try {
                requests.onCompleted();
            } catch (RuntimeException ignored) {
                // The stream is already broken; its pending requests are failed below either way.
            }
            requests = null;
        }
        failAll(new BrokerNotAvailableException(name + ": stream closed"));
    }

    private synchronized void broken(Session broken, Throwable t) {
        if (session == broken) {
            requests = null;
            session = null;
        }
        failAll(GrpcErrors.toException(t, name));
    }

    private void failAll(RuntimeException e) {
        List<CompletableFuture<R>> all = new ArrayList<>(pending.values());
        pending.clear();
        for (CompletableFuture<R> f : all) {
            f.completeExceptionally(e);
        }
    }

    /** The response observer of one opened stream; a new one per reopen so a stale stream's end is ignored. */
    private final class Session implements StreamObserver<R> {
        @Override
        public void onNext(R response) {
            CompletableFuture<R> f = pending.remove(correlationOf.applyAsLong(response));
            if (f != null) {
                f.complete(response);
            }
        }

        @Override
        public void onError(Throwable t) {
            broken(this, t);
        }

        @Override
        public void onCompleted() {
            broken(this, new BrokerNotAvailableException(name + ": the broker closed the stream"));
        }
    }
}
