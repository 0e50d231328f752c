package io.raftline.metadata.client;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * The controller listeners served in this JVM, reachable in-process. In a combined node (broker and controller in
 * one process) the broker's {@link ControllerChannel} calls (forwarded admin writes, heartbeats) to the node's own
 * controller go in-process, skipping the loopback TCP, Netty's event loops and the protobuf encode/decode on both
 * sides, which on a busy machine cost a few thread wake-ups per hop. A listener not registered here (another process,
 * or a server already closed) is reached over the network as before, so registering is only ever a shortcut. The
 * metadata stream ({@link MetadataFollower}) stays on the network: calls stalled ~1 s while it ran in-process, and
 * that stream was not shown to be innocent.
 *
 * <p>Keys are {@code host:port} exactly as the controller listener is named in configuration (bind and advertised
 * host); a name spelled differently (e.g. {@code localhost} for {@code 127.0.0.1}) simply takes the network path.
 * One instance per node, shared by its controller server and its broker's channel (a fresh one knows no listener,
 * so everything goes over the network). Thread-safe.
 */
public final class LocalControllers {

    /** host:port of a listener to the name of its in-process server. */
    private final Map<String, String> registered = new ConcurrentHashMap<>();

    public LocalControllers() {
    }

    /** The in-process server name of a controller listener. */
    public static String serverName(String host, int port) {
        return "raftline-controller:" + host + ":" + port;
    }

    /** Called by the controller server once its in-process server {@code serverName} serves {@code host:port}. */
    public void register(String host, int port, String serverName) {
        registered.put(key(host, port), serverName);
    }

    /** Called by the controller server before its in-process server stops. */
    public void unregister(String host, int port) {
        registered.remove(key(host, port));
    }

    public boolean isLocal(InetSocketAddress address) {
        return registered.containsKey(key(address.getHostString(), address.getPort()));
    }

    /**
     * An in-process channel to {@code address} if a controller in this JVM serves it, else null. {@code executor}:
     * where responses are delivered (null: gRPC's default).
     */
    ManagedChannel channelIfLocal(InetSocketAddress address, Executor executor, int maxInboundMessageSize) {
        String name = registered.get(key(address.getHostString(), address.getPort()));
        if (name == null) {
            return null;
        }
        InProcessChannelBuilder b = InProcessChannelBuilder.forName(name)
            .maxInboundMessageSize(maxInboundMessageSize);
        if (executor != null) {
            b.executor(executor);
        }
        return b.build();
    }

    private static String key(String host, int port) {
        return host + ":" + port;
    }
}
