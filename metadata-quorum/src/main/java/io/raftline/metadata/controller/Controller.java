package io.raftline.metadata.controller;

import io.raftline.common.Time;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.controller.AllocateProducerIdsRequest;
import io.raftline.protocol.controller.AllocateProducerIdsResponse;
import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.controller.AlterConfigsResponse;
import io.raftline.protocol.controller.AlterPartitionReassignmentsRequest;
import io.raftline.protocol.controller.AlterPartitionReassignmentsResponse;
import io.raftline.protocol.controller.AlterPartitionRequest;
import io.raftline.protocol.controller.AlterPartitionResponse;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import io.raftline.protocol.controller.BrokerHeartbeatResponse;
import io.raftline.protocol.controller.AlterUserScramCredentialsRequest;
import io.raftline.protocol.controller.AlterUserScramCredentialsResponse;
import io.raftline.protocol.controller.CreateAclsRequest;
import io.raftline.protocol.controller.CreateAclsResponse;
import io.raftline.protocol.controller.CreatePartitionsRequest;
import io.raftline.protocol.controller.CreatePartitionsResponse;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.protocol.controller.DeleteAclsRequest;
import io.raftline.protocol.controller.DeleteAclsResponse;
import io.raftline.protocol.controller.DeleteTopicsRequest;
import io.raftline.protocol.controller.DeleteTopicsResponse;
import io.raftline.protocol.controller.ElectLeadersRequest;
import io.raftline.protocol.controller.ElectLeadersResponse;
import io.raftline.protocol.controller.RegisterBrokerRequest;
import io.raftline.protocol.controller.RegisterBrokerResponse;
import io.raftline.protocol.metadata.ControllerChangeRecord;
import io.raftline.protocol.metadata.Endpoint;
import io.raftline.protocol.metadata.FeatureLevelRecord;
import io.raftline.protocol.metadata.MetadataRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Every decision of the active controller, as pure functions of (image, request, time): each returns the records
 * to append and the response (see {@link ControllerResult}); the glue appends, waits for the commit, and answers.
 * The only state kept here is in memory and is rebuilt on activation: broker heartbeat times and the next
 * leader-balance check.
 *
 * <p>Contract for the caller: decide on the latest applied image, append the records, and have them applied
 * before the next decision (one decision in flight at a time), so that every decision sees its predecessors.
 * One writer: the controller's event thread.
 */
public final class Controller {

    private final ControllerConfig config;
    private final Time time;
    private final BrokerControl brokers;
    private final TopicControl topics;
    private final PartitionControl partitions;
    private long nextBalanceCheckMs;
    /** The image on which offline elections and reassignment completions last found nothing to do; see periodic. */
    private MetadataImage quietImage;
    private long quietOfflineVersion = -1;

    public Controller(ControllerConfig config, String clusterId, Time time, RandomGenerator random) {
        this.config = config;
        this.time = time;
        this.partitions = new PartitionControl(config);
        this.brokers = new BrokerControl(config, clusterId, partitions);
        this.topics = new TopicControl(config, random);
    }

    public ControllerConfig config() {
        return config;
    }

    /**
     * Becoming the active controller: the records to write first (a controller change with the next epoch, and the
     * initial feature level on a new cluster), and a fresh grace period for every broker (a short one for the broker on
     * the previous controller's node: see {@link BrokerControl#activate}).
     */
    public List<MetadataRecord> activate(MetadataImage image, int nodeId, Endpoint controllerEndpoint) {
        long now = time.hiResMilliseconds();
        brokers.activate(image, nodeId, now);
        nextBalanceCheckMs = now + config.leaderImbalanceCheckIntervalSeconds() * 1000;
        List<MetadataRecord> out = new ArrayList<>();
        if (image.metadataVersion() < MetadataImage.LATEST_METADATA_VERSION && image.metadataVersion() == 0) {
            out.add(MetadataImage.wrap(MetadataRecord.newBuilder().setFeatureLevel(FeatureLevelRecord.newBuilder()
                .setName(MetadataImage.METADATA_VERSION).setLevel(MetadataImage.LATEST_METADATA_VERSION))));
        }
        out.add(MetadataImage.wrap(MetadataRecord.newBuilder().setControllerChange(ControllerChangeRecord.newBuilder()
            .setControllerId(nodeId).setControllerEpoch(image.controllerEpoch() + 1)
            .setControllerEndpoint(controllerEndpoint))));
        return out;
    }

    public ControllerResult<RegisterBrokerResponse> registerBroker(MetadataImage image, RegisterBrokerRequest request) {
        return brokers.register(image, request, time.hiResMilliseconds());
    }

    public ControllerResult<BrokerHeartbeatResponse> brokerHeartbeat(MetadataImage image, BrokerHeartbeatRequest request) {
        return brokers.heartbeat(image, request, time.hiResMilliseconds());
    }

    /**
     * Thread-safe, callable from RPC threads: notes that a heartbeat arrived now, before it is decided on, so that
     * session expiry counts it even while it waits behind other work.
     */
    public void heartbeatArrived(int brokerId, long brokerEpoch) {
        brokers.heartbeatArrived(brokerId, brokerEpoch, time.hiResMilliseconds());
    }

    /**
     * Thread-safe, callable from transport threads: the connection that heartbeats of {@code brokerId} at
     * {@code brokerEpoch} came over closed now; unless the broker heartbeats again within two heartbeat intervals,
     * it is fenced then rather than when its session runs out.
     */
    public void heartbeatConnectionClosed(int brokerId, long brokerEpoch) {
        brokers.connectionClosed(brokerId, brokerEpoch, time.hiResMilliseconds());
    }

    /**
     * Thread-safe: monotonic ms when a heartbeat from {@code brokerId} last arrived here since this controller was
     * activated; -1 if none.
     */
    public long brokerLastHeartbeatArrivalMs(int brokerId) {
        return brokers.lastArrivalMs(brokerId);
    }

    /** Monotonic ms of a broker's last heartbeat seen by this controller; -1 if none. */
    public long brokerLastContactMs(int brokerId) {
        return brokers.lastContactMs(brokerId);
    }

    public ControllerResult<AlterPartitionResponse> alterPartition(MetadataImage image, AlterPartitionRequest request) {
        return partitions.alterPartition(image, request);
    }

    public ControllerResult<AllocateProducerIdsResponse> allocateProducerIds(MetadataImage image,
                                                                             AllocateProducerIdsRequest request) {
        return brokers.allocateProducerIds(image, request);
    }

    public ControllerResult<CreateTopicsResponse> createTopics(MetadataImage image, CreateTopicsRequest request) {
        return topics.createTopics(image, request);
    }

    public ControllerResult<DeleteTopicsResponse> deleteTopics(MetadataImage image, DeleteTopicsRequest request) {
        return topics.deleteTopics(image, request);
    }

    public ControllerResult<CreatePartitionsResponse> createPartitions(MetadataImage image, CreatePartitionsRequest request) {
        return topics.createPartitions(image, request);
    }

    public ControllerResult<AlterConfigsResponse> alterConfigs(MetadataImage image, AlterConfigsRequest request) {
        return topics.alterConfigs(image, request);
    }

    public ControllerResult<CreateAclsResponse> createAcls(MetadataImage image, CreateAclsRequest request) {
        return AclControl.createAcls(image, request);
    }

    public ControllerResult<DeleteAclsResponse> deleteAcls(MetadataImage image, DeleteAclsRequest request) {
        return AclControl.deleteAcls(image, request);
    }

    public ControllerResult<AlterUserScramCredentialsResponse> alterUserScramCredentials(MetadataImage image,
                                                                                         AlterUserScramCredentialsRequest request) {
        return ScramControl.alter(image, request);
    }

    public ControllerResult<ElectLeadersResponse> electLeaders(MetadataImage image, ElectLeadersRequest request) {
        return partitions.electLeaders(image, request);
    }

    public ControllerResult<AlterPartitionReassignmentsResponse> alterPartitionReassignments(
        MetadataImage image, AlterPartitionReassignmentsRequest request) {
        return partitions.reassign(image, request);
    }

    /**
     * The periodic duties, in priority order; returns the records of the first duty that has something to do
     * (empty: nothing to do), so that each is decided on an image that includes the previous one's records:
     * fence brokers whose session expired; elect leaders for offline partitions; finish reassignments whose new
     * replicas joined the ISR; every leader.imbalance.check.interval.seconds, move leadership back to preferred
     * leaders if a broker's share drifted past leader.imbalance.per.broker.percentage.
     */
    public List<MetadataRecord> periodic(MetadataImage image) {
        long now = time.hiResMilliseconds();
        List<MetadataRecord> out = brokers.fenceExpired(image, now);
        if (!out.isEmpty()) {
            return out;
        }
        // Both scan every partition, and at idle every tick (100 ms) sees the same image: a scan that found nothing
        // is not repeated until the image or the offline replicas change (the image is immutable, so a new one is
        // a new object; projected images share the committed one's index, so the index would not do).
        if (image != quietImage || partitions.offlineVersion() != quietOfflineVersion) {
            out = partitions.electOffline(image, PartitionControl.activeIn(image));
            if (!out.isEmpty()) {
                return out;
            }
            out = partitions.completeReassignments(image);
            if (!out.isEmpty()) {
                return out;
            }
            quietImage = image;
            quietOfflineVersion = partitions.offlineVersion();
        }
        if (config.autoLeaderRebalanceEnable() && now >= nextBalanceCheckMs) {
            nextBalanceCheckMs = now + config.leaderImbalanceCheckIntervalSeconds() * 1000;
            return partitions.balanceLeaders(image);
        }
        return List.of();
    }
}
