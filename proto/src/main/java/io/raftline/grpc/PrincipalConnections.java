package io.raftline.grpc;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * How many connections one principal may hold on a broker at once ({@code max.connections.per.principal}), over
 * broker.listener and kafka.listener together, so that one user cannot take every connection whatever addresses it
 * comes from ({@code max.connections.per.ip} bounds one address). A connection counts for the principal its requests
 * are made as (its client certificate's, or its SCRAM session's user) from its first such request until it closes.
 * A connection past the limit has each request refused, the client sees the broker as unavailable and retries, as
 * after Kafka's refused connections. {@link TransportSecurity#ANONYMOUS} and the exempt principals (the nodes and
 * {@code super.users}) are not counted.
 *
 * <p>The decision is plain code: {@link Slot#actAs} and {@link Slot#release}, table-tested.
 */
public final class PrincipalConnections {

    public static final PrincipalConnections UNLIMITED = new PrincipalConnections(Integer.MAX_VALUE, p -> true);

    private final int max;
    private final Predicate<String> exempt;
    private final Map<String, Integer> open = new HashMap<>();
    private final AtomicLong refused = new AtomicLong();

    /** {@code max} connections per principal; {@code exempt} principals (nodes, super users) are never counted. */
    public PrincipalConnections(int max, Predicate<String> exempt) {
        this.max = max;
        this.exempt = exempt;
    }

    public int max() {
        return max;
    }

    /** A new connection's place: it holds none until its first request. */
    public Slot slot() {
        return new Slot();
    }

    /** How many connections {@code principal} holds now. */
    public synchronized int open(String principal) {
        return open.getOrDefault(principal, 0);
    }

    /** How many requests were refused for a principal at its limit, since start. */
    public long refused() {
        return refused.get();
    }

    /** Why a request of a connection past the limit is refused: the principal, its count and the key. */
    public String refusal(String principal) {
        return "too many connections as " + principal + " on this broker: it holds " + open(principal)
            + " (max.connections.per.principal=" + max + ")";
    }

    private synchronized boolean take(String principal) {
        int n = open.getOrDefault(principal, 0);
        if (n >= max) {
            refused.incrementAndGet();
            return false;
        }
        open.put(principal, n + 1);
        return true;
    }

    private synchronized void give(String principal) {
        int n = open.getOrDefault(principal, 0);
        if (n <= 1) {
            open.remove(principal);
        } else {
            open.put(principal, n - 1);
        }
    }

    private boolean counted(String principal) {
        return max != Integer.MAX_VALUE && !TransportSecurity.ANONYMOUS.equals(principal) && !exempt.test(principal);
    }

    /** One connection's place among its principal's. Thread-safe: a connection's requests run on several threads. */
    public final class Slot {
        private String held;
        private boolean closed;

        /**
         * Whether this connection may make a request as {@code principal}: true when it already counts for it, or
         * now does; false when the principal holds its limit elsewhere (the request is refused). A connection that
         * changes principal gives up the place of the old one.
         */
        public synchronized boolean actAs(String principal) {
            if (closed) {
                return false;
            }
            if (principal.equals(held) || !counted(principal)) {
                return true;
            }
            if (!take(principal)) {
                return false;
            }
            if (held != null) {
                give(held);
            }
            held = principal;
            return true;
        }

        /** The connection closed: its place comes back. Idempotent. */
        public synchronized void release() {
            closed = true;
            if (held != null) {
                give(held);
                held = null;
            }
        }
    }
}
