package io.raftline.metadata.client;

import io.raftline.grpc.TransportSecurity;
import io.raftline.common.Time;
import io.raftline.metadata.controller.ControllerConfig;
import io.raftline.protocol.metadata.Endpoint;
import java.io.Closeable;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Everything a broker needs from the metadata quorum, built from its settings: the {@link MetadataFollower} (its
 * image), the {@link ControllerChannel} (requests to the active controller: AlterPartition, producer ids, admin
 * writes forwarded from clients) and the {@link BrokerLifecycleManager} (registration, heartbeats, controlled
 * shutdown). {@link #start()} starts following and registering; {@link #close()} stops all three.
 */
public final class BrokerMetadataClient implements Closeable {

    /** The deadline of a forwarded admin request (Kafka's default.api.timeout.ms is 60 s; the CLI's is 30 s). */
    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

    private final MetadataFollower follower;
    private final ControllerChannel channel;
    private final BrokerLifecycleManager lifecycle;

    /**
     * @param advertisedEndpoints the broker's listeners as others reach them (name "broker" for the data plane)
     * @param rack                {@code broker.rack}, or null/empty for none
     */
    public BrokerMetadataClient(int brokerId, String clusterId, List<InetSocketAddress> controllerEndpoints,
                                List<Endpoint> advertisedEndpoints, String rack, Time time) {
        this(brokerId, clusterId, controllerEndpoints, advertisedEndpoints, rack, time,
            ControllerConfig.defaults().brokerHeartbeatIntervalMs());
    }

    public BrokerMetadataClient(int brokerId, String clusterId, List<InetSocketAddress> controllerEndpoints,
                                List<Endpoint> advertisedEndpoints, String rack, Time time, long heartbeatIntervalMs) {
        this(brokerId, clusterId, controllerEndpoints, advertisedEndpoints, rack, time, heartbeatIntervalMs,
            new LocalControllers());
    }

    /** {@code localControllers}: the controllers in this JVM, which the channel calls in-process. */
    public BrokerMetadataClient(int brokerId, String clusterId, List<InetSocketAddress> controllerEndpoints,
                                List<Endpoint> advertisedEndpoints, String rack, Time time, long heartbeatIntervalMs,
                                LocalControllers localControllers) {
        this(brokerId, clusterId, controllerEndpoints, advertisedEndpoints, rack, time, heartbeatIntervalMs, localControllers,
            TransportSecurity.plaintext());
    }

    /** {@code security}: how the controller.listener is reached over the network (TLS with this node's certificate). */
    public BrokerMetadataClient(int brokerId, String clusterId, List<InetSocketAddress> controllerEndpoints,
                                List<Endpoint> advertisedEndpoints, String rack, Time time, long heartbeatIntervalMs,
                                LocalControllers localControllers, TransportSecurity security) {
        this.follower = new MetadataFollower(brokerId, controllerEndpoints, time, security);
        this.channel = new ControllerChannel(controllerEndpoints, time, DEFAULT_REQUEST_TIMEOUT_MS, localControllers, security);
        this.lifecycle = new BrokerLifecycleManager(brokerId, clusterId, advertisedEndpoints, rack, channel, follower,
            heartbeatIntervalMs, time);
        // A new active controller gives the broker on its predecessor's node only one heartbeat interval (see
        // BrokerControl.activate), and every broker's first heartbeat to it ends the wait of acks=all on the others'
        // deaths sooner: heartbeat at once rather than at the next interval.
        follower.addListener((delta, image) -> {
            if (delta.controllerChanged()) {
                lifecycle.heartbeatNow();
            }
        });
    }

    public void start() {
        follower.start();
        lifecycle.start();
    }

    public MetadataFollower follower() {
        return follower;
    }

    public ControllerChannel channel() {
        return channel;
    }

    public BrokerLifecycleManager lifecycle() {
        return lifecycle;
    }

    @Override
    public void close() {
        lifecycle.close();
        follower.close();
        channel.close();
    }
}
