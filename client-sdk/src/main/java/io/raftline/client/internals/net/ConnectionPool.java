package io.raftline.client.internals.net;

import io.raftline.grpc.TransportSecurity;
import io.raftline.client.common.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** One {@link BrokerConnection} per broker address, created on first use and closed with the client. */
public final class ConnectionPool implements AutoCloseable {

    private final String clientId;
    private final int maxInboundBytes;
    private final RequestMetrics metrics;
    private final Map<String, BrokerConnection> connections = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private final TransportSecurity security;

    /** How this pool's connections are secured, for the client's other channels to the same brokers. */
    public TransportSecurity security() {
        return security;
    }

    /** @param maxInboundBytes the largest response a connection accepts */
    public ConnectionPool(String clientId, int maxInboundBytes) {
        this(clientId, maxInboundBytes, RequestMetrics.NONE);
    }

    /** As {@link #ConnectionPool(String, int)}, with every connection timing its requests in {@code metrics}. */
    public ConnectionPool(String clientId, int maxInboundBytes, RequestMetrics metrics) {
        this(clientId, maxInboundBytes, metrics, TransportSecurity.plaintext());
    }

    /** As above, every connection secured as {@code security} says (TLS from the client's ssl.* keys). */
    public ConnectionPool(String clientId, int maxInboundBytes, RequestMetrics metrics, TransportSecurity security) {
        this.security = security;
        this.clientId = clientId;
        this.maxInboundBytes = maxInboundBytes;
        this.metrics = metrics;
    }

    /** The connection to {@code node}'s address. */
    public BrokerConnection get(Node node) {
        return get(node.host(), node.port());
    }

    /** The connection to {@code host:port}. */
    public BrokerConnection get(String host, int port) {
        if (closed) {
            throw new IllegalStateException("The client is closed");
        }
        return connections.computeIfAbsent(host + ":" + port, a -> new BrokerConnection(host, port, clientId, maxInboundBytes,
            metrics.forBroker(a), security));
    }

    /** The client's request metrics (metadata refreshes count here). */
    public RequestMetrics metrics() {
        return metrics;
    }

    @Override
    public void close() {
        closed = true;
        List<BrokerConnection> all = new ArrayList<>(connections.values());
        connections.clear();
        for (BrokerConnection c : all) {
            c.close();
        }
    }
}
