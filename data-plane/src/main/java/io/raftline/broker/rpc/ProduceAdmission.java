package io.raftline.broker.rpc;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The broker-wide bound on produce requests read off the wire and not answered yet: at most {@code maxRequests} of
 * them (reservations for a message a stream asked gRPC for count too) and, once {@code maxBytes} of request bytes are
 * held, no new reservation. A produce stream asks gRPC for its next message only with a reservation, so past the
 * bound the broker stops reading: HTTP/2 flow control and then TCP hold the producers back (their requests wait in
 * the client, which fails them after its delivery timeout) instead of the heap filling up.
 *
 * <p>Bound on held bytes: {@code maxBytes} plus one request (at most {@code socket.request.max.bytes}) per
 * reservation granted while under it, so below {@code maxBytes + maxRequests * socket.request.max.bytes} in the
 * worst case and near {@code maxBytes} in practice (producers send requests of {@code max.request.size}).
 *
 * <p>One instance per broker, shared by the gRPC produce streams and the Kafka listener's connections.
 */
public final class ProduceAdmission {

    /** A stream waiting for a reservation. */
    public interface Waiter {
        /** Called without the admission's lock held: the waiter now holds a reservation. */
        void granted();
    }

    private final int maxRequests;
    private final long maxBytes;
    private final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
    private int requests;
    private long bytes;

    public ProduceAdmission(int maxRequests, long maxBytes) {
        if (maxRequests < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("bounds must be positive: " + maxRequests + " requests, " + maxBytes + " bytes");
        }
        this.maxRequests = maxRequests;
        this.maxBytes = maxBytes;
    }

    private boolean room() {
        return requests < maxRequests && bytes < maxBytes;
    }

    /** Takes a reservation and returns true, or queues {@code waiter} (granted later) and returns false. */
    public synchronized boolean reserveOrWait(Waiter waiter) {
        if (waiting.isEmpty() && room()) {
            requests++;
            return true;
        }
        waiting.add(waiter);
        return false;
    }

    /** The message a reservation was for arrived: its bytes are held until {@link #release}. */
    public synchronized void arrived(long size) {
        bytes += size;
    }

    /** A request that arrived was answered. */
    public void release(long size) {
        grant(size, 1);
    }

    /** A reservation whose message never came (the stream ended). */
    public void cancelReservation() {
        grant(0, 1);
    }

    /** A waiter that went away before it was granted. */
    public synchronized void forget(Waiter waiter) {
        waiting.remove(waiter);
    }

    private void grant(long size, int count) {
        List<Waiter> granted = new ArrayList<>();
        synchronized (this) {
            requests -= count;
            bytes -= size;
            if (requests < 0 || bytes < 0) {
                throw new IllegalStateException("admission released more than it held: " + requests + " requests, "
                    + bytes + " bytes");
            }
            while (!waiting.isEmpty() && room()) {
                requests++;
                granted.add(waiting.poll());
            }
        }
        granted.forEach(Waiter::granted);
    }

    synchronized int requests() {
        return requests;
    }

    synchronized long bytes() {
        return bytes;
    }

    synchronized int waiting() {
        return waiting.size();
    }
}
