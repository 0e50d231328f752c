package io.raftline.metadata.quorum;

import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerTransportFilter;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which network connection each broker's heartbeats come over, so that the controller learns at once when that
 * connection closes (see {@code Controller#heartbeatConnectionClosed}): the kernel of a process that dies closes its
 * sockets, long before the broker's session would run out. A connection is known by its remote address; the
 * {@link #interceptor()} makes it visible to the heartbeat call ({@link #remote()}), the {@link #filter()} reports
 * its end. Calls without a remote address (this node's own broker, in process) are not tracked.
 */
final class HeartbeatConnections {

    /** Told that the connection of a broker's heartbeats closed; any thread. */
    @FunctionalInterface
    interface Listener {
        void closed(int brokerId, long brokerEpoch);
    }

    private static final Context.Key<SocketAddress> REMOTE = Context.key("raftline-remote-address");

    /** Remote address -> {broker id, broker epoch} of the last heartbeat over that connection. */
    private final Map<SocketAddress, long[]> byConnection = new ConcurrentHashMap<>();
    private final Listener listener;

    HeartbeatConnections(Listener listener) {
        this.listener = listener;
    }

    /** Puts each call's remote address in its context. */
    ServerInterceptor interceptor() {
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
                SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
                return remote == null ? next.startCall(call, headers)
                    : Contexts.interceptCall(Context.current().withValue(REMOTE, remote), call, headers, next);
            }
        };
    }

    /** Reports the end of a connection that carried heartbeats. */
    ServerTransportFilter filter() {
        return new ServerTransportFilter() {
            @Override
            public void transportTerminated(Attributes transportAttrs) {
                SocketAddress remote = transportAttrs == null ? null : transportAttrs.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
                long[] broker = remote == null ? null : byConnection.remove(remote);
                if (broker != null) {
                    listener.closed((int) broker[0], broker[1]);
                }
            }
        };
    }

    /** In a heartbeat call: notes that {@code brokerId} at {@code brokerEpoch} heartbeats over this call's connection. */
    void heartbeat(int brokerId, long brokerEpoch) {
        SocketAddress remote = REMOTE.get();
        if (remote != null) {
            byConnection.put(remote, new long[] {brokerId, brokerEpoch});
        }
    }
}
