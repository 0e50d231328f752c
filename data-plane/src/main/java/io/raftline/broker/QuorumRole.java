package io.raftline.broker;

import io.raftline.broker.config.NodeSecurity;
import io.raftline.broker.storage.MetaProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.raftline.metadata.client.LocalControllers;
import io.raftline.common.config.HostPort;
import io.raftline.broker.config.ServerConfig;
import io.raftline.broker.log.LogConfig;
import io.raftline.common.Time;
import io.raftline.metadata.controller.ControllerConfig;
import io.raftline.metadata.controller.TopicConfigs;
import io.raftline.metadata.quorum.QuorumConfig;
import io.raftline.metadata.quorum.QuorumNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/** Starts a node's quorum role (Ratis voter + controller service) from its server config. */
final class QuorumRole {

    private QuorumRole() {
    }

    static QuorumNode start(ServerConfig config, String clusterId, Time time, MeterRegistry registry,
                            LocalControllers localControllers, NodeSecurity security) {
        try {
            return QuorumNode.start(quorumConfig(config, clusterId, security), controllerConfig(config), time, registry,
                localControllers);
        } catch (IOException e) {
            throw new UncheckedIOException("the quorum role failed to start: " + e.getMessage(), e);
        }
    }

    static QuorumConfig quorumConfig(ServerConfig config, String clusterId) {
        return quorumConfig(config, clusterId, NodeSecurity.plaintext());
    }

    static QuorumConfig quorumConfig(ServerConfig config, String clusterId, NodeSecurity security) {
        Map<Integer, InetSocketAddress> voters = new LinkedHashMap<>();
        config.quorumVoters().forEach((id, hp) -> voters.put(id, InetSocketAddress.createUnresolved(hp.host(), hp.port())));
        HostPort quorum = config.quorumListener();
        HostPort controller = config.controllerListener();
        return QuorumConfig.builder()
            .nodeId(config.nodeId())
            .clusterId(clusterId)
            .quorumListener(quorum.host(), quorum.port())
            .controllerListener(controller.host(), controller.port())
            .controllerAdvertisedHost(controllerAdvertisedHost(config))
            .voters(voters)
            .metadataDir(config.metadataDir())
            .directoryId(directoryIdOf(config.metadataDir()))
            .snapshotRecords(config.getLong("metadata.snapshot.records"))
            .electionTimeoutMs(config.getInt("quorum.election.timeout.min.ms"), config.getInt("quorum.election.timeout.max.ms"))
            .requestTimeoutMs(config.getInt("quorum.request.timeout.ms"))
            .security(security.quorum())
            .build();
    }

    /** The directory id in the metadata dir's meta.properties (checked to exist before the node starts). */
    private static String directoryIdOf(java.nio.file.Path metadataDir) {
        MetaProperties meta = MetaProperties.read(metadataDir);
        return meta == null ? "" : meta.directoryId();
    }

    /**
     * The host brokers and the other voters are told to reach this node's controller.listener at (the active
     * controller's address they follow): the listener's own host when it names one; bound to the wildcard, this
     * node's entry in quorum.voters, the address the other voters already reach it at on every host of a
     * multi-host cluster; only without such an entry, the broker's advertised host (this host's name).
     */
    static String controllerAdvertisedHost(ServerConfig config) {
        HostPort controller = config.controllerListener();
        if (!isWildcard(controller.host())) {
            return controller.host();
        }
        HostPort self = config.quorumVoters().get(config.nodeId());
        if (self != null && !isWildcard(self.host())) {
            return self.host();
        }
        return config.brokerAdvertisedListener().host();
    }

    private static boolean isWildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") || host.isEmpty();
    }

    static ControllerConfig controllerConfig(ServerConfig config) {
        ControllerConfig.Builder b = ControllerConfig.builder()
            .numPartitions(config.getInt("num.partitions"))
            .defaultReplicationFactor((short) config.getInt("default.replication.factor"))
            .minInsyncReplicas(config.getInt("min.insync.replicas"))
            .uncleanLeaderElectionEnable(config.getBoolean("unclean.leader.election.enable"))
            .brokerSessionTimeoutMs(config.getInt("broker.session.timeout.ms"))
            .brokerHeartbeatIntervalMs(config.getInt("broker.heartbeat.interval.ms"))
            .offsetsTopicNumPartitions(config.getInt("offsets.topic.num.partitions"))
            .offsetsTopicReplicationFactor((short) config.getInt("offsets.topic.replication.factor"))
            .autoLeaderRebalanceEnable(config.getBoolean("auto.leader.rebalance.enable"))
            .leaderImbalancePerBrokerPercentage(config.getInt("leader.imbalance.per.broker.percentage"))
            .leaderImbalanceCheckIntervalSeconds(config.getLong("leader.imbalance.check.interval.seconds"));
        // The controller validates and describes the topic configs of the CLI contract; the log knows a few more
        // (index sizes, cleaner ratio) that stay broker-level.
        LogConfig.topicDefaults(config.originals()).forEach((name, value) -> {
            if (TopicConfigs.isKnown(name)) {
                b.topicConfigDefault(name, value);
            }
        });
        return b.build();
    }
}
