package io.raftline.metadata.controller;

import io.raftline.common.ManualTime;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import io.raftline.protocol.controller.BrokerHeartbeatResponse;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.protocol.controller.RegisterBrokerRequest;
import io.raftline.protocol.metadata.Endpoint;
import io.raftline.protocol.metadata.MetadataRecord;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** A controller with a manual clock and an in-memory "log": each result is applied at the next index, as the glue does. */
final class ControllerTestContext {

    static final String CLUSTER = "test-cluster";

    final ManualTime time = new ManualTime();
    private final ControllerConfig config;
    private final long seed;
    Controller controller;
    MetadataImage image = MetadataImage.EMPTY;
    long nextIndex = 1;

    ControllerTestContext(ControllerConfig config, long seed) {
        System.out.println("seed " + seed);
        this.config = config;
        this.seed = seed;
        this.controller = new Controller(config, CLUSTER, time, new SplittableRandom(seed));
        apply(controller.activate(image, 100, Endpoint.newBuilder().setName("controller").setHost("h").setPort(1).build()));
    }

    /** A new controller on node {@code nodeId} takes over on the current image (the previous one's memory is gone). */
    void activateOn(int nodeId) {
        controller = new Controller(config, CLUSTER, time, new SplittableRandom(seed + nodeId));
        apply(controller.activate(image, nodeId, Endpoint.newBuilder().setName("controller").setHost("h" + nodeId)
            .setPort(1).build()));
    }

    ControllerTestContext() {
        this(ControllerConfig.builder().autoLeaderRebalanceEnable(false).build(), 42);
    }

    MetadataImage apply(List<MetadataRecord> records) {
        if (!records.isEmpty()) {
            image = MetadataDelta.replayAll(image, nextIndex++, records).image();
        }
        return image;
    }

    <T> T run(ControllerResult<T> result) {
        apply(result.records());
        return result.response().apply(image);
    }

    /** Registers brokers 1..n (rack r(i) if racks given) and unfences them. */
    void startBrokers(int n, String... racks) {
        for (int i = 1; i <= n; i++) {
            String rack = racks.length == 0 ? "" : racks[(i - 1) % racks.length];
            long epoch = run(controller.registerBroker(image, RegisterBrokerRequest.newBuilder().setClusterId(CLUSTER)
                .setBrokerId(i).setIncarnationId("inc-" + i + "-" + nextIndex).setRack(rack).setMaxSupportedMetadataVersion(1)
                .addEndpoints(Endpoint.newBuilder().setName("broker").setHost("127.0.0.1").setPort(9000 + i)).build()))
                .getBrokerEpoch();
            heartbeat(i, epoch);
        }
    }

    BrokerHeartbeatResponse heartbeat(int id, long epoch) {
        return run(controller.brokerHeartbeat(image, BrokerHeartbeatRequest.newBuilder().setBrokerId(id).setBrokerEpoch(epoch)
            .setMetadataOffset(image.index()).build()));
    }

    BrokerHeartbeatResponse heartbeat(int id) {
        return heartbeat(id, image.broker(id).orElseThrow().epoch());
    }

    /** Heartbeats from every listed broker, then advances the clock. */
    void tick(long ms, int... alive) {
        for (int id : alive) {
            heartbeat(id);
        }
        time.advance(ms);
        apply(controller.periodic(image));
    }

    /** Runs periodic duties until none has anything to do. */
    void settle() {
        for (int i = 0; i < 100; i++) {
            List<MetadataRecord> r = controller.periodic(image);
            if (r.isEmpty()) {
                return;
            }
            apply(r);
        }
        throw new AssertionError("periodic duties do not settle");
    }

    CreateTopicsResponse.Result createTopic(String name, int partitions, int rf, Map<String, String> configs) {
        return run(controller.createTopics(image, CreateTopicsRequest.newBuilder().addTopics(CreatableTopic.newBuilder()
            .setName(name).setNumPartitions(partitions).setReplicationFactor(rf).putAllConfigs(configs)).build())).getTopics(0);
    }

    TopicImage topic(String name) {
        return image.topic(name).orElseThrow();
    }

    PartitionRegistration partition(String name, int p) {
        return topic(name).partition(p);
    }
}
