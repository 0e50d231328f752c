package io.raftline.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.metadata.image.BrokerRegistration;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.AllocateProducerIdsRequest;
import io.raftline.protocol.controller.AllocateProducerIdsResponse;
import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.controller.AlterConfigsResponse;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import io.raftline.protocol.controller.BrokerHeartbeatResponse;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreatePartitionsRequest;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.protocol.controller.DeleteTopicsRequest;
import io.raftline.protocol.controller.RegisterBrokerRequest;
import io.raftline.protocol.metadata.BrokerState;
import io.raftline.protocol.metadata.ConfigResourceType;
import io.raftline.protocol.metadata.Endpoint;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ControllerTest {

    @Test
    void registrationStartsFencedAndUnfencesOnceCaughtUp() {
        ControllerTestContext ctx = new ControllerTestContext();
        long epoch = ctx.run(ctx.controller.registerBroker(ctx.image, RegisterBrokerRequest.newBuilder()
            .setClusterId(ControllerTestContext.CLUSTER).setBrokerId(1).setIncarnationId("a").setMaxSupportedMetadataVersion(1)
            .build())).getBrokerEpoch();
        assertThat(epoch).isEqualTo(ctx.image.index());
        assertThat(ctx.image.broker(1).orElseThrow().fenced()).isTrue();
        BrokerHeartbeatResponse behind = ctx.run(ctx.controller.brokerHeartbeat(ctx.image, BrokerHeartbeatRequest.newBuilder()
            .setBrokerId(1).setBrokerEpoch(epoch).setMetadataOffset(epoch - 1).build()));
        assertThat(behind.getIsCaughtUp()).isFalse();
        assertThat(behind.getIsFenced()).isTrue();
        BrokerHeartbeatResponse caughtUp = ctx.heartbeat(1, epoch);
        assertThat(caughtUp.getIsFenced()).isFalse();
        assertThat(ctx.image.broker(1).orElseThrow().active()).isTrue();
        BrokerHeartbeatResponse stale = ctx.heartbeat(1, epoch - 1);
        assertThat(stale.getError().getCode()).isEqualTo(ErrorCode.STALE_BROKER_EPOCH);
        long indexBefore = ctx.image.index();
        assertThat(ctx.run(ctx.controller.registerBroker(ctx.image, RegisterBrokerRequest.newBuilder()
            .setClusterId("other").setBrokerId(2).setIncarnationId("b").build())).getError().getCode())
            .isEqualTo(ErrorCode.INCONSISTENT_CLUSTER_ID);
        assertThat(ctx.image.index()).isEqualTo(indexBefore);
    }

    @Test
    void missedSessionFencesAndMovesLeadershipWithinTheIsr() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        ctx.createTopic("t", 3, 3, Map.of());
        ctx.createTopic("single", 1, 1, Map.of());
        int soleBroker = ctx.partition("single", 0).leader();
        int victim = soleBroker;
        int[] alive = java.util.stream.IntStream.rangeClosed(1, 3).filter(i -> i != victim).toArray();
        for (int i = 0; i < 5; i++) {
            ctx.tick(250, alive);
        }
        assertThat(ctx.image.broker(victim).orElseThrow().fenced()).as("not yet: 1250 ms").isFalse();
        ctx.tick(300, alive);
        assertThat(ctx.image.broker(victim).orElseThrow().fenced()).isTrue();
        for (PartitionRegistration p : ctx.topic("t").partitions().values()) {
            assertThat(p.leader()).isNotEqualTo(victim).isNotEqualTo(PartitionRegistration.NO_LEADER);
            assertThat(p.isr()).doesNotContain(victim).hasSize(2);
            assertThat(p.isr()).contains(p.leader());
        }
        PartitionRegistration single = ctx.partition("single", 0);
        assertThat(single.leader()).as("offline: its only ISR member is gone").isEqualTo(PartitionRegistration.NO_LEADER);
        assertThat(single.isr()).containsExactly(victim);
        assertThat(single.leaderEpoch()).isEqualTo(1);

        // The broker comes back with its data: it is unfenced and leads the offline partition again.
        BrokerHeartbeatResponse back = ctx.heartbeat(victim);
        assertThat(back.getIsFenced()).isFalse();
        assertThat(ctx.partition("single", 0).leader()).isEqualTo(victim);
        assertThat(ctx.partition("single", 0).leaderEpoch()).isEqualTo(2);
    }

    @Test
    void uncleanElectionOnlyWhenTheTopicAllowsIt() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(2);
        ctx.createTopic("clean", 1, 2, Map.of());
        ctx.createTopic("dirty", 1, 2, Map.of("unclean.leader.election.enable", "true"));
        int leader = ctx.partition("clean", 0).leader();
        int follower = 3 - leader;
        // The follower falls out of the ISR, then the leader dies.
        shrinkIsrTo(ctx, "clean", leader);
        if (ctx.partition("dirty", 0).leader() == leader) {
            shrinkIsrTo(ctx, "dirty", leader);
        }
        for (int i = 0; i < 8; i++) {
            ctx.tick(250, follower);
        }
        assertThat(ctx.image.broker(leader).orElseThrow().fenced()).isTrue();
        assertThat(ctx.partition("clean", 0).leader()).isEqualTo(PartitionRegistration.NO_LEADER);
        assertThat(ctx.partition("dirty", 0).leader()).isEqualTo(follower);
        assertThat(ctx.partition("dirty", 0).isr()).containsExactly(follower);
    }

    static void shrinkIsrTo(ControllerTestContext ctx, String topic, int leader) {
        TopicImage t = ctx.topic(topic);
        PartitionRegistration p = t.partition(0);
        var resp = ctx.run(ctx.controller.alterPartition(ctx.image, io.raftline.protocol.controller.AlterPartitionRequest
            .newBuilder().setBrokerId(leader).setBrokerEpoch(ctx.image.broker(leader).orElseThrow().epoch())
            .addPartitions(io.raftline.protocol.controller.AlterPartitionRequest.PartitionIsr.newBuilder()
                .setTopicId(PartitionControl.idBytes(t.id())).setPartition(0).setLeaderEpoch(p.leaderEpoch())
                .setPartitionEpoch(p.partitionEpoch()).addNewIsr(leader)).build()));
        assertThat(resp.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
    }

    @Test
    void newControllerGivesEveryBrokerASessionOfGrace() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        ctx.time.advance(10_000);
        // A new controller takes over long after the last heartbeat it could have seen.
        ctx.apply(ctx.controller.activate(ctx.image, 101, Endpoint.getDefaultInstance()));
        assertThat(ctx.image.controllerEpoch()).isEqualTo(2);
        for (int i = 0; i < 4; i++) {
            ctx.tick(250);
        }
        assertThat(ctx.image.brokers().values()).noneMatch(BrokerRegistration::fenced);
        for (int i = 0; i < 3; i++) {
            ctx.tick(250, 1, 2);
        }
        assertThat(ctx.image.broker(3).orElseThrow().fenced()).isTrue();
        assertThat(ctx.image.broker(1).orElseThrow().fenced()).isFalse();
    }

    @Test
    void controlledShutdownMovesLeadershipsThenLetsTheBrokerGo() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        ctx.createTopic("t", 6, 3, Map.of());
        long epoch = ctx.image.broker(2).orElseThrow().epoch();
        BrokerHeartbeatRequest shutdown = BrokerHeartbeatRequest.newBuilder().setBrokerId(2).setBrokerEpoch(epoch)
            .setWantShutdown(true).setMetadataOffset(ctx.image.index()).build();
        BrokerHeartbeatResponse first = ctx.run(ctx.controller.brokerHeartbeat(ctx.image, shutdown));
        assertThat(first.getShouldShutDown()).isFalse();
        assertThat(ctx.image.broker(2).orElseThrow().state()).isEqualTo(BrokerState.SHUTTING_DOWN);
        for (PartitionRegistration p : ctx.topic("t").partitions().values()) {
            assertThat(p.leader()).isNotEqualTo(2).isNotEqualTo(-1);
            assertThat(p.isr()).doesNotContain(2);
        }
        BrokerHeartbeatResponse stillBehind = ctx.run(ctx.controller.brokerHeartbeat(ctx.image,
            shutdown.toBuilder().setMetadataOffset(ctx.image.index() - 1).build()));
        assertThat(stillBehind.getShouldShutDown()).isFalse();
        BrokerHeartbeatResponse done = ctx.run(ctx.controller.brokerHeartbeat(ctx.image,
            shutdown.toBuilder().setMetadataOffset(ctx.image.index()).build()));
        assertThat(done.getShouldShutDown()).isTrue();
    }

    @Test
    void staleAlterPartitionIsRefusedAndChangesNothing() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        ctx.createTopic("t", 1, 3, Map.of("min.insync.replicas", "2"));
        TopicImage t = ctx.topic("t");
        PartitionRegistration p = t.partition(0);
        int leader = p.leader();
        long epoch = ctx.image.broker(leader).orElseThrow().epoch();
        var base = io.raftline.protocol.controller.AlterPartitionRequest.PartitionIsr.newBuilder()
            .setTopicId(PartitionControl.idBytes(t.id())).setPartition(0).setLeaderEpoch(p.leaderEpoch())
            .setPartitionEpoch(p.partitionEpoch()).addNewIsr(leader);
        long index = ctx.image.index();
        assertThat(alter(ctx, leader, epoch, base.clone().setPartitionEpoch(p.partitionEpoch() - 1)))
            .isEqualTo(ErrorCode.INVALID_UPDATE_VERSION);
        assertThat(alter(ctx, leader, epoch, base.clone().setLeaderEpoch(p.leaderEpoch() - 1)))
            .isEqualTo(ErrorCode.FENCED_LEADER_EPOCH);
        assertThat(alter(ctx, leader, epoch, base.clone().setLeaderEpoch(p.leaderEpoch() + 1)))
            .isEqualTo(ErrorCode.UNKNOWN_LEADER_EPOCH);
        int other = p.replicas().stream().filter(r -> r != leader).findFirst().orElseThrow();
        assertThat(alter(ctx, other, ctx.image.broker(other).orElseThrow().epoch(), base.clone()))
            .isEqualTo(ErrorCode.NOT_LEADER);
        assertThat(ctx.image.index()).as("nothing written").isEqualTo(index);

        // A valid shrink below min.insync.replicas is allowed and reported.
        assertThat(alter(ctx, leader, epoch, base.clone())).isEqualTo(ErrorCode.NONE);
        PartitionRegistration shrunk = ctx.partition("t", 0);
        assertThat(shrunk.isr()).containsExactly(leader);
        assertThat(shrunk.belowMinIsr()).isTrue();
        assertThat(shrunk.partitionEpoch()).isEqualTo(p.partitionEpoch() + 1);
        assertThat(shrunk.leaderEpoch()).isEqualTo(p.leaderEpoch());
        // The same request again is now stale.
        assertThat(alter(ctx, leader, epoch, base.clone())).isEqualTo(ErrorCode.INVALID_UPDATE_VERSION);
        // Expanding back.
        assertThat(alter(ctx, leader, epoch, base.clone().setPartitionEpoch(shrunk.partitionEpoch()).clearNewIsr()
            .addAllNewIsr(p.replicas()))).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.partition("t", 0).isr()).containsExactlyElementsOf(p.replicas());
        assertThat(ctx.partition("t", 0).belowMinIsr()).isFalse();
    }

    static ErrorCode alter(ControllerTestContext ctx, int broker, long epoch,
                           io.raftline.protocol.controller.AlterPartitionRequest.PartitionIsr.Builder p) {
        var resp = ctx.run(ctx.controller.alterPartition(ctx.image, io.raftline.protocol.controller.AlterPartitionRequest
            .newBuilder().setBrokerId(broker).setBrokerEpoch(epoch).addPartitions(p).build()));
        return resp.getError().getCode() != ErrorCode.NONE ? resp.getError().getCode() : resp.getPartitions(0).getError().getCode();
    }

    @Test
    void topicRulesRefuseBadRequestsWithSpecificCodes() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(2);
        assertThat(ctx.createTopic("a.b", 1, 1, Map.of()).getError().getCode()).isEqualTo(ErrorCode.NONE);
        long index = ctx.image.index();
        assertThat(ctx.createTopic("a_b", 1, 1, Map.of()).getError().getCode()).isEqualTo(ErrorCode.INVALID_TOPIC);
        assertThat(ctx.createTopic("a.b", 1, 1, Map.of()).getError().getCode()).isEqualTo(ErrorCode.TOPIC_ALREADY_EXISTS);
        assertThat(ctx.createTopic("..", 1, 1, Map.of()).getError().getCode()).isEqualTo(ErrorCode.INVALID_TOPIC);
        assertThat(ctx.createTopic("", 1, 1, Map.of()).getError().getCode()).isEqualTo(ErrorCode.INVALID_TOPIC);
        assertThat(ctx.createTopic("x".repeat(250), 1, 1, Map.of()).getError().getCode()).isEqualTo(ErrorCode.INVALID_TOPIC);
        assertThat(ctx.createTopic("x".repeat(249), 1, 1, Map.of()).getError().getCode()).isEqualTo(ErrorCode.NONE);
        index = ctx.image.index();
        assertThat(ctx.createTopic("sp ace", 1, 1, Map.of()).getError().getMessage()).contains("legal characters");
        assertThat(ctx.createTopic("p0", 0, 1, Map.of()).getError().getCode()).isEqualTo(ErrorCode.INVALID_PARTITIONS);
        CreateTopicsResponse.Result rf = ctx.createTopic("rf3", 1, 3, Map.of());
        assertThat(rf.getError().getCode()).isEqualTo(ErrorCode.INVALID_REPLICATION_FACTOR);
        assertThat(rf.getError().getMessage()).contains("larger than the 2 available brokers");
        assertThat(ctx.createTopic("c1", 1, 1, Map.of("retention.mss", "1")).getError().getCode())
            .isEqualTo(ErrorCode.INVALID_CONFIG);
        assertThat(ctx.createTopic("c2", 1, 1, Map.of("retention.ms", "soon")).getError().getCode())
            .isEqualTo(ErrorCode.INVALID_CONFIG);
        assertThat(ctx.createTopic("c3", 1, 1, Map.of("cleanup.policy", "forever")).getError().getCode())
            .isEqualTo(ErrorCode.INVALID_CONFIG);
        assertThat(ctx.createTopic("c4", 1, 1, Map.of("unclean.leader.election.enable", "yes")).getError().getCode())
            .isEqualTo(ErrorCode.INVALID_CONFIG);
        assertThat(ctx.createTopic("c5", 1, 1, Map.of("min.insync.replicas", "0")).getError().getCode())
            .isEqualTo(ErrorCode.INVALID_CONFIG);
        assertThat(ctx.image.index()).as("nothing written for refusals").isEqualTo(index);

        CreateTopicsResponse validateOnly = ctx.run(ctx.controller.createTopics(ctx.image, CreateTopicsRequest.newBuilder()
            .setValidateOnly(true).addTopics(CreatableTopic.newBuilder().setName("v").setNumPartitions(3)
                .setReplicationFactor(2)).build()));
        assertThat(validateOnly.getTopics(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.image.topic("v")).isEmpty();

        assertThat(ctx.createTopic("ok", -1, -1, Map.of("compression.type", "zstd", "cleanup.policy", "compact,delete"))
            .getNumPartitions()).isEqualTo(1);
        assertThat(ctx.run(ctx.controller.createPartitions(ctx.image, CreatePartitionsRequest.newBuilder()
            .addTopics(CreatePartitionsRequest.Topic.newBuilder().setName("ok").setCount(1)).build())).getTopics(0).getError()
            .getCode()).isEqualTo(ErrorCode.INVALID_PARTITIONS);
        assertThat(ctx.run(ctx.controller.createPartitions(ctx.image, CreatePartitionsRequest.newBuilder()
            .addTopics(CreatePartitionsRequest.Topic.newBuilder().setName("ok").setCount(4)).build())).getTopics(0).getError()
            .getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.topic("ok").numPartitions()).isEqualTo(4);

        AlterConfigsResponse badAlter = ctx.run(ctx.controller.alterConfigs(ctx.image, AlterConfigsRequest.newBuilder()
            .addOps(AlterConfigsRequest.Op.newBuilder().setResourceType(ConfigResourceType.TOPIC).setResourceName("ok")
                .setName("retention.ms").setValue("5"))
            .addOps(AlterConfigsRequest.Op.newBuilder().setResourceType(ConfigResourceType.TOPIC).setResourceName("ok")
                .setName("nope").setValue("5")).build()));
        assertThat(badAlter.getError().getCode()).isEqualTo(ErrorCode.INVALID_CONFIG);
        assertThat(ctx.image.configs(io.raftline.metadata.image.ConfigResource.topic("ok"))).doesNotContainKey("retention.ms");
        AlterConfigsResponse alter = ctx.run(ctx.controller.alterConfigs(ctx.image, AlterConfigsRequest.newBuilder()
            .addOps(AlterConfigsRequest.Op.newBuilder().setResourceType(ConfigResourceType.TOPIC).setResourceName("ok")
                .setName("retention.ms").setValue("5"))
            .addOps(AlterConfigsRequest.Op.newBuilder().setResourceType(ConfigResourceType.TOPIC).setResourceName("ok")
                .setName("compression.type")).build()));
        assertThat(alter.getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.image.configs(io.raftline.metadata.image.ConfigResource.topic("ok")))
            .containsEntry("retention.ms", "5").doesNotContainKey("compression.type");

        assertThat(ctx.run(ctx.controller.deleteTopics(ctx.image, DeleteTopicsRequest.newBuilder().addNames("ok")
            .addNames("missing").build())).getTopicsList()).extracting(r -> r.getError().getCode())
            .containsExactly(ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(ctx.image.topic("ok")).isEmpty();
        assertThat(ctx.image.configs(io.raftline.metadata.image.ConfigResource.topic("ok"))).isEmpty();
    }

    @Test
    void namesCollideWithinOneRequestAndNoLongerOnceTheOtherIsDeleted() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(1);
        CreateTopicsResponse one = ctx.run(ctx.controller.createTopics(ctx.image, CreateTopicsRequest.newBuilder()
            .addTopics(CreatableTopic.newBuilder().setName("x.y").setNumPartitions(1).setReplicationFactor(1))
            .addTopics(CreatableTopic.newBuilder().setName("x_y").setNumPartitions(1).setReplicationFactor(1))
            .addTopics(CreatableTopic.newBuilder().setName("x.y").setNumPartitions(1).setReplicationFactor(1))
            .addTopics(CreatableTopic.newBuilder().setName("plain").setNumPartitions(1).setReplicationFactor(1))
            .addTopics(CreatableTopic.newBuilder().setName("plain").setNumPartitions(1).setReplicationFactor(1)).build()));
        assertThat(one.getTopicsList()).extracting(r -> r.getError().getCode()).containsExactly(ErrorCode.NONE,
            ErrorCode.INVALID_TOPIC, ErrorCode.TOPIC_ALREADY_EXISTS, ErrorCode.NONE, ErrorCode.TOPIC_ALREADY_EXISTS);
        assertThat(one.getTopics(1).getError().getMessage()).contains("collides with existing topic 'x.y'");
        assertThat(ctx.image.topicIdsByName().keySet()).containsExactly("plain", "x.y");
        assertThat(ctx.image.collidingTopic("x_y")).contains("x.y");
        assertThat(ctx.image.collidingTopic("x.y")).as("a name does not collide with itself").isEmpty();

        assertThat(ctx.run(ctx.controller.deleteTopics(ctx.image, DeleteTopicsRequest.newBuilder().addNames("x.y")
            .build())).getTopics(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.image.collidingTopic("x_y")).isEmpty();
        assertThat(ctx.createTopic("x_y", 1, 1, Map.of()).getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.createTopic("x.y", 1, 1, Map.of()).getError().getMessage())
            .contains("collides with existing topic 'x_y'");
    }

    private static AlterConfigsRequest.Op op(ConfigResourceType type, String resource, String name, String value) {
        AlterConfigsRequest.Op.Builder b = AlterConfigsRequest.Op.newBuilder().setResourceType(type)
            .setResourceName(resource).setName(name);
        if (value != null) {
            b.setValue(value);
        }
        return b.build();
    }

    /** The replication throttles: rates on brokers (one or all), replica lists on topics, Kafka's formats only. */
    @Test
    void replicationThrottleConfigsAreValidatedAndStored() {
        ControllerTestContext ctx = new ControllerTestContext(ControllerConfig.builder().build(), 1);
        ctx.startBrokers(2);
        ctx.createTopic("t", 2, 1, Map.of());
        Object[][] table = {
            {ConfigResourceType.BROKER, "1", "leader.replication.throttled.rate", "524288", ErrorCode.NONE},
            {ConfigResourceType.BROKER, "", "follower.replication.throttled.rate", "1000", ErrorCode.NONE},
            {ConfigResourceType.BROKER, "1", "leader.replication.throttled.rate", "0", ErrorCode.INVALID_CONFIG},
            {ConfigResourceType.BROKER, "1", "follower.replication.throttled.rate", "fast", ErrorCode.INVALID_CONFIG},
            {ConfigResourceType.BROKER, "1", "leader.replication.throttled.replicas", "*", ErrorCode.INVALID_CONFIG},
            {ConfigResourceType.TOPIC, "t", "leader.replication.throttled.replicas", "0:1,1:2", ErrorCode.NONE},
            {ConfigResourceType.TOPIC, "t", "follower.replication.throttled.replicas", "*", ErrorCode.NONE},
            {ConfigResourceType.TOPIC, "t", "follower.replication.throttled.replicas", "0-1", ErrorCode.INVALID_CONFIG},
            {ConfigResourceType.TOPIC, "t", "leader.replication.throttled.replicas", "0:1,*", ErrorCode.INVALID_CONFIG},
            {ConfigResourceType.TOPIC, "t", "leader.replication.throttled.rate", "5", ErrorCode.INVALID_CONFIG},
        };
        for (Object[] row : table) {
            AlterConfigsResponse r = ctx.run(ctx.controller.alterConfigs(ctx.image, AlterConfigsRequest.newBuilder()
                .addOps(op((ConfigResourceType) row[0], (String) row[1], (String) row[2], (String) row[3])).build()));
            assertThat(r.getError().getCode()).as(Arrays.toString(row) + ": " + r.getError().getMessage()).isEqualTo(row[4]);
        }
        assertThat(ctx.image.configs(io.raftline.metadata.image.ConfigResource.broker("1")))
            .containsExactly(Map.entry("leader.replication.throttled.rate", "524288"));
        assertThat(ctx.image.configs(io.raftline.metadata.image.ConfigResource.topic("t")))
            .containsEntry("leader.replication.throttled.replicas", "0:1,1:2")
            .containsEntry("follower.replication.throttled.replicas", "*");
        ctx.run(ctx.controller.alterConfigs(ctx.image, AlterConfigsRequest.newBuilder()
            .addOps(op(ConfigResourceType.BROKER, "1", "leader.replication.throttled.rate", null))
            .addOps(op(ConfigResourceType.TOPIC, "t", "leader.replication.throttled.replicas", null)).build()));
        assertThat(ctx.image.configs(io.raftline.metadata.image.ConfigResource.broker("1"))).isEmpty();
        assertThat(ctx.image.configs(io.raftline.metadata.image.ConfigResource.topic("t")))
            .doesNotContainKey("leader.replication.throttled.replicas");
    }

    private static AlterConfigsRequest.Op listOp(ConfigResourceType type, String resource, String name,
                                                 AlterConfigsRequest.Op.Kind kind, String value) {
        return op(type, resource, name, value).toBuilder().setKind(kind).build();
    }

    /** APPEND and SUBTRACT start from the value in effect, change list configs only, and a request is all or none. */
    @Test
    void appendAndSubtractChangeListConfigsFromTheirCurrentValue() {
        ControllerTestContext ctx = new ControllerTestContext(ControllerConfig.builder().build(), 1);
        ctx.startBrokers(1);
        ctx.createTopic("t", 1, 1, Map.of());
        var append = AlterConfigsRequest.Op.Kind.APPEND;
        var subtract = AlterConfigsRequest.Op.Kind.SUBTRACT;
        // from the static default (delete) and from nothing
        AlterConfigsResponse r = ctx.run(ctx.controller.alterConfigs(ctx.image, AlterConfigsRequest.newBuilder()
            .addOps(listOp(ConfigResourceType.TOPIC, "t", "cleanup.policy", append, "compact"))
            .addOps(listOp(ConfigResourceType.TOPIC, "t", "follower.replication.throttled.replicas", append, "0:1")).build()));
        assertThat(r.getError().getCode()).as(r.getError().getMessage()).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.image.configs(io.raftline.metadata.image.ConfigResource.topic("t")))
            .containsEntry("cleanup.policy", "delete,compact").containsEntry("follower.replication.throttled.replicas", "0:1");
        // a broker list: from the cluster-wide default, which broker 1 then inherits
        ctx.run(ctx.controller.alterConfigs(ctx.image, AlterConfigsRequest.newBuilder()
            .addOps(listOp(ConfigResourceType.BROKER, "", "log.cleanup.policy", append, "compact")).build()));
        ctx.run(ctx.controller.alterConfigs(ctx.image, AlterConfigsRequest.newBuilder()
            .addOps(listOp(ConfigResourceType.BROKER, "1", "log.cleanup.policy", subtract, "delete")).build()));
        assertThat(ctx.image.configs(io.raftline.metadata.image.ConfigResource.broker(""))).containsEntry("log.cleanup.policy",
            "delete,compact");
        assertThat(ctx.image.configs(io.raftline.metadata.image.ConfigResource.broker("1"))).containsEntry("log.cleanup.policy",
            "compact");

        Object[][] refused = {
            {listOp(ConfigResourceType.TOPIC, "t", "retention.ms", append, "5"), ErrorCode.INVALID_CONFIG, "not a list"},
            {listOp(ConfigResourceType.BROKER, "", "log.retention.ms", subtract, "5"), ErrorCode.INVALID_CONFIG, "not a list"},
            {listOp(ConfigResourceType.BROKER, "1", "follower.replication.throttled.rate", append, "5"), ErrorCode.INVALID_CONFIG,
                "not a list"},
            {listOp(ConfigResourceType.TOPIC, "t", "cleanup.policy", subtract, "delete,compact"), ErrorCode.INVALID_CONFIG,
                "cleanup.policy"},
            {listOp(ConfigResourceType.TOPIC, "t", "cleanup.policy", append, "shred"), ErrorCode.INVALID_CONFIG, "shred"},
            {listOp(ConfigResourceType.TOPIC, "t", "cleanup.policy", append, null), ErrorCode.INVALID_CONFIG, "no value"},
            {listOp(ConfigResourceType.TOPIC, "missing", "cleanup.policy", append, "compact"),
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "missing"},
        };
        for (Object[] row : refused) {
            // each beside a good op, which is not applied either
            AlterConfigsResponse bad = ctx.run(ctx.controller.alterConfigs(ctx.image, AlterConfigsRequest.newBuilder()
                .addOps(listOp(ConfigResourceType.TOPIC, "t", "follower.replication.throttled.replicas", append, "0:2"))
                .addOps((AlterConfigsRequest.Op) row[0]).build()));
            assertThat(bad.getError().getCode()).as(row[0].toString()).isEqualTo(row[1]);
            assertThat(bad.getError().getMessage()).contains((String) row[2]);
        }
        assertThat(ctx.image.configs(io.raftline.metadata.image.ConfigResource.topic("t")))
            .containsEntry("cleanup.policy", "delete,compact").containsEntry("follower.replication.throttled.replicas", "0:1");
    }

    @Test
    void offsetsTopicIsCreatedOnRequestWithTheClusterShape() {
        ControllerTestContext ctx = new ControllerTestContext(ControllerConfig.builder().offsetsTopicNumPartitions(10)
            .offsetsTopicReplicationFactor((short) 3).build(), 1);
        ctx.startBrokers(2);
        assertThat(ctx.createTopic(TopicNames.CONSUMER_OFFSETS, 1, 1, Map.of()).getError().getCode())
            .isEqualTo(ErrorCode.INVALID_REPLICATION_FACTOR);
        ctx.startBrokers(3);
        CreateTopicsResponse.Result r = ctx.createTopic(TopicNames.CONSUMER_OFFSETS, 1, 1, Map.of());
        assertThat(r.getError().getCode()).isEqualTo(ErrorCode.NONE);
        TopicImage t = ctx.topic(TopicNames.CONSUMER_OFFSETS);
        assertThat(t.internal()).isTrue();
        assertThat(t.numPartitions()).isEqualTo(10);
        assertThat(t.partition(0).replicas()).hasSize(3);
        assertThat(ctx.image.configs(io.raftline.metadata.image.ConfigResource.topic(t.name())))
            .containsEntry("cleanup.policy", "compact");
        assertThat(ctx.run(ctx.controller.deleteTopics(ctx.image, DeleteTopicsRequest.newBuilder()
            .addNames(TopicNames.CONSUMER_OFFSETS).build())).getTopics(0).getError().getCode()).isEqualTo(ErrorCode.INVALID_TOPIC);
    }

    @Test
    void producerIdBlocksNeverOverlap() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(2);
        AllocateProducerIdsResponse a = ctx.run(ctx.controller.allocateProducerIds(ctx.image, AllocateProducerIdsRequest
            .newBuilder().setBrokerId(1).setBrokerEpoch(ctx.image.broker(1).orElseThrow().epoch()).build()));
        AllocateProducerIdsResponse b = ctx.run(ctx.controller.allocateProducerIds(ctx.image, AllocateProducerIdsRequest
            .newBuilder().setBrokerId(2).setBrokerEpoch(ctx.image.broker(2).orElseThrow().epoch()).build()));
        assertThat(a.getFirstProducerId()).isEqualTo(0);
        assertThat(b.getFirstProducerId()).isEqualTo(a.getFirstProducerId() + a.getBlockSize());
        assertThat(ctx.image.nextProducerId()).isEqualTo(b.getFirstProducerId() + b.getBlockSize());
        assertThat(ctx.run(ctx.controller.allocateProducerIds(ctx.image, AllocateProducerIdsRequest.newBuilder()
            .setBrokerId(1).setBrokerEpoch(1).build())).getError().getCode()).isEqualTo(ErrorCode.STALE_BROKER_EPOCH);
    }

    @Test
    void restartedBrokerLosesItsLeadershipsUntilItCatchesUp() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        ctx.createTopic("t", 3, 3, Map.of());
        long epoch = ctx.run(ctx.controller.registerBroker(ctx.image, RegisterBrokerRequest.newBuilder()
            .setClusterId(ControllerTestContext.CLUSTER).setBrokerId(1).setIncarnationId("new").setMaxSupportedMetadataVersion(1)
            .build())).getBrokerEpoch();
        assertThat(ctx.image.broker(1).orElseThrow().epoch()).isEqualTo(epoch);
        assertThat(ctx.image.broker(1).orElseThrow().fenced()).isTrue();
        assertThat(ctx.topic("t").partitions().values()).allMatch(p -> p.leader() != 1 && !p.isr().contains(1));
        List<Integer> leaders = ctx.topic("t").partitions().values().stream().map(PartitionRegistration::leader).toList();
        assertThat(leaders).doesNotContain(-1);
    }

    @Test
    void aHeartbeatThatArrivedButIsStillQueuedCountsAsContact() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(2);
        for (int i = 0; i < 7; i++) {
            ctx.time.advance(200);
            ctx.settle();
        }
        // Broker 2's heartbeat arrived (RPC thread) but was not decided on yet; broker 1 sent nothing.
        ctx.controller.heartbeatArrived(2, ctx.image.broker(2).orElseThrow().epoch());
        ctx.controller.heartbeatArrived(1, 1);
        ctx.time.advance(200);
        ctx.settle();
        assertThat(ctx.image.broker(2).orElseThrow().fenced()).isFalse();
        assertThat(ctx.image.broker(1).orElseThrow().fenced()).as("an arrival with a stale epoch does not count").isTrue();
    }

    @Test
    void aStalledControllerDoesNotFenceBrokersForItsOwnPause() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        ctx.createTopic("t", 3, 3, Map.of());
        ctx.tick(250, 1, 2, 3);
        ctx.tick(250, 1, 2, 3);
        // The controller does not run for 3 s (a GC pause, a starved CPU): heartbeats wait in its sockets.
        ctx.time.advance(3000);
        ctx.settle();
        assertThat(ctx.image.brokers().values()).as("fenced for the controller's own pause")
            .noneMatch(BrokerRegistration::fenced);
        // Running again: brokers 1 and 2 heartbeat, broker 3 stays silent and is fenced about a session later.
        for (int i = 0; i < 4; i++) {
            ctx.tick(250, 1, 2);
        }
        assertThat(ctx.image.broker(3).orElseThrow().fenced())
            .as("1000 ms of running; 1350 ms without broker 3, counting only time the controller ran").isFalse();
        for (int i = 0; i < 3; i++) {
            ctx.tick(250, 1, 2);
        }
        assertThat(ctx.image.broker(3).orElseThrow().fenced()).isTrue();
        assertThat(ctx.image.broker(1).orElseThrow().fenced()).isFalse();
        assertThat(ctx.image.broker(2).orElseThrow().fenced()).isFalse();
    }
}
