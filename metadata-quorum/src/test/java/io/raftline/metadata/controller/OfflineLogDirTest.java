package io.raftline.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.AlterPartitionRequest;
import io.raftline.protocol.controller.AlterPartitionResponse;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import io.raftline.protocol.controller.BrokerHeartbeatResponse;
import io.raftline.protocol.controller.OfflineReplica;
import io.raftline.protocol.controller.RegisterBrokerRequest;
import io.raftline.protocol.metadata.Endpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The controller's decisions when a broker reports replicas in an offline log dir (manual clock, in-memory log). */
class OfflineLogDirTest {

    private static final int VICTIM = 2;

    private static BrokerHeartbeatResponse reportOffline(ControllerTestContext ctx, int broker, List<OfflineReplica> replicas) {
        return ctx.run(ctx.controller.brokerHeartbeat(ctx.image, BrokerHeartbeatRequest.newBuilder().setBrokerId(broker)
            .setBrokerEpoch(ctx.image.broker(broker).orElseThrow().epoch()).setMetadataOffset(ctx.image.index())
            .addOfflineLogDirs("/data/b").addAllOfflineReplicas(replicas).build()));
    }

    private static OfflineReplica replica(ControllerTestContext ctx, String topic, int partition) {
        return OfflineReplica.newBuilder().setTopicId(PartitionControl.idBytes(ctx.topic(topic).id())).setPartition(partition).build();
    }

    /** The partitions of {@code topic} that {@code broker} leads, and those it only follows. */
    private static List<List<Integer>> roles(ControllerTestContext ctx, String topic, int broker) {
        List<Integer> leads = new ArrayList<>();
        List<Integer> follows = new ArrayList<>();
        ctx.topic(topic).partitions().forEach((n, p) -> {
            if (p.leader() == broker) {
                leads.add(n);
            } else if (p.replicas().contains(broker)) {
                follows.add(n);
            }
        });
        return List.of(leads, follows);
    }

    @Test
    void replicasInAnOfflineDirLeaveTheirIsrsAndLeadershipsWhileTheBrokersOtherReplicasStay() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        ctx.createTopic("t", 6, 3, Map.of());
        List<List<Integer>> roles = roles(ctx, "t", VICTIM);
        assertThat(roles.get(0)).hasSizeGreaterThanOrEqualTo(2);
        int ledOffline = roles.get(0).get(0);
        int ledOnline = roles.get(0).get(1);
        int followedOffline = roles.get(1).get(0);
        Map<Integer, PartitionRegistration> before = ctx.topic("t").partitions();

        BrokerHeartbeatResponse resp = reportOffline(ctx, VICTIM,
            List.of(replica(ctx, "t", ledOffline), replica(ctx, "t", followedOffline)));
        assertThat(resp.getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(resp.getIsFenced()).as("the broker stays active: its other dir serves").isFalse();

        PartitionRegistration moved = ctx.partition("t", ledOffline);
        assertThat(moved.leader()).isNotEqualTo(VICTIM).isNotEqualTo(PartitionRegistration.NO_LEADER);
        assertThat(moved.isr()).doesNotContain(VICTIM).hasSize(2);
        assertThat(moved.leaderEpoch()).isEqualTo(before.get(ledOffline).leaderEpoch() + 1);
        PartitionRegistration shrunk = ctx.partition("t", followedOffline);
        assertThat(shrunk.isr()).doesNotContain(VICTIM).hasSize(2);
        assertThat(shrunk.leader()).as("a follower leaving changes no leadership").isEqualTo(before.get(followedOffline).leader());
        assertThat(shrunk.leaderEpoch()).isEqualTo(before.get(followedOffline).leaderEpoch());
        // Every other partition is untouched: the broker keeps leading and following in its healthy dir.
        assertThat(ctx.partition("t", ledOnline)).isEqualTo(before.get(ledOnline));
        ctx.topic("t").partitions().forEach((n, p) -> {
            if (n != ledOffline && n != followedOffline) {
                assertThat(p).isEqualTo(before.get(n));
            }
        });

        // The same report again writes nothing; periodic duties never bring the offline replica back.
        long index = ctx.image.index();
        reportOffline(ctx, VICTIM, List.of(replica(ctx, "t", ledOffline), replica(ctx, "t", followedOffline)));
        ctx.tick(100, 1, 3);
        ctx.settle();
        assertThat(ctx.image.index()).isEqualTo(index);
    }

    @Test
    void aSoleReplicaInAnOfflineDirGoesLeaderlessAndIsNotReElectedUntilTheBrokerRestarts() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        ctx.createTopic("single", 3, 1, Map.of());
        int partition = -1;
        for (Map.Entry<Integer, PartitionRegistration> e : ctx.topic("single").partitions().entrySet()) {
            if (e.getValue().leader() == VICTIM) {
                partition = e.getKey();
            }
        }
        assertThat(partition).as("broker %d leads one partition of 'single'", VICTIM).isNotNegative();
        reportOffline(ctx, VICTIM, List.of(replica(ctx, "single", partition)));
        PartitionRegistration p = ctx.partition("single", partition);
        assertThat(p.leader()).isEqualTo(PartitionRegistration.NO_LEADER);
        assertThat(p.isr()).as("the last ISR member stays, as when a broker is fenced").containsExactly(VICTIM);

        // Elections (periodic and the preferred one asked by an operator) skip the offline replica.
        reportOffline(ctx, VICTIM, List.of(replica(ctx, "single", partition)));
        ctx.tick(100, 1, 3);
        ctx.settle();
        assertThat(ctx.partition("single", partition).leader()).isEqualTo(PartitionRegistration.NO_LEADER);
        var elect = ctx.run(ctx.controller.electLeaders(ctx.image, io.raftline.protocol.controller.ElectLeadersRequest.newBuilder()
            .addPartitions(io.raftline.protocol.TopicPartition.newBuilder().setTopic("single").setPartition(partition)).build()));
        assertThat(elect.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE);

        // The broker restarts (its dirs checked again): a new registration forgets the report and it leads again.
        long epoch = ctx.run(ctx.controller.registerBroker(ctx.image, RegisterBrokerRequest.newBuilder()
            .setClusterId(ControllerTestContext.CLUSTER).setBrokerId(VICTIM).setIncarnationId("after-disk-swap")
            .setMaxSupportedMetadataVersion(1).addEndpoints(Endpoint.newBuilder().setName("broker").setHost("127.0.0.1")
                .setPort(9002)).build())).getBrokerEpoch();
        assertThat(ctx.heartbeat(VICTIM, epoch).getIsFenced()).isFalse();
        assertThat(ctx.partition("single", partition).leader()).isEqualTo(VICTIM);
    }

    @Test
    void aReportThatNoLongerNamesTheSoleReplicaLetsTheNextPeriodicCheckElectItOnTheSameImage() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        ctx.createTopic("single", 3, 1, Map.of());
        int partition = ctx.topic("single").partitions().entrySet().stream().filter(e -> e.getValue().leader() == VICTIM)
            .findFirst().orElseThrow().getKey();
        reportOffline(ctx, VICTIM, List.of(replica(ctx, "single", partition)));
        ctx.settle();
        assertThat(ctx.partition("single", partition).leader()).isEqualTo(PartitionRegistration.NO_LEADER);
        assertThat(ctx.controller.periodic(ctx.image)).as("nothing to do on this image").isEmpty();

        // the broker's next heartbeat reports no offline replica: the image does not change, the decision does
        var image = ctx.image;
        reportOffline(ctx, VICTIM, List.of());
        assertThat(ctx.image).isSameAs(image);
        ctx.settle();
        assertThat(ctx.partition("single", partition).leader()).isEqualTo(VICTIM);
    }

    @Test
    void aLeaderCannotAddAReplicaThatIsInAnOfflineDirBackToTheIsr() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        ctx.createTopic("t", 3, 3, Map.of());
        int n = roles(ctx, "t", VICTIM).get(1).get(0);
        reportOffline(ctx, VICTIM, List.of(replica(ctx, "t", n)));
        TopicImage t = ctx.topic("t");
        PartitionRegistration p = t.partition(n);
        assertThat(p.isr()).doesNotContain(VICTIM);
        List<Integer> grown = new ArrayList<>(p.isr());
        grown.add(VICTIM);
        long index = ctx.image.index();
        AlterPartitionResponse resp = ctx.run(ctx.controller.alterPartition(ctx.image, AlterPartitionRequest.newBuilder()
            .setBrokerId(p.leader()).setBrokerEpoch(ctx.image.broker(p.leader()).orElseThrow().epoch())
            .addPartitions(AlterPartitionRequest.PartitionIsr.newBuilder().setTopicId(PartitionControl.idBytes(t.id()))
                .setPartition(n).setLeaderEpoch(p.leaderEpoch()).setPartitionEpoch(p.partitionEpoch()).addAllNewIsr(grown))
            .build()));
        assertThat(resp.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.INELIGIBLE_REPLICA);
        assertThat(ctx.image.index()).isEqualTo(index);

        // Once the broker no longer reports it (an empty set), the leader may add it back.
        reportOffline(ctx, VICTIM, List.of());
        p = ctx.partition("t", n);
        resp = ctx.run(ctx.controller.alterPartition(ctx.image, AlterPartitionRequest.newBuilder()
            .setBrokerId(p.leader()).setBrokerEpoch(ctx.image.broker(p.leader()).orElseThrow().epoch())
            .addPartitions(AlterPartitionRequest.PartitionIsr.newBuilder().setTopicId(PartitionControl.idBytes(t.id()))
                .setPartition(n).setLeaderEpoch(p.leaderEpoch()).setPartitionEpoch(p.partitionEpoch()).addAllNewIsr(grown))
            .build()));
        assertThat(resp.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.partition("t", n).isr()).contains(VICTIM);
    }

    @Test
    void unknownOrForeignPartitionsInAReportChangeNothing() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        ctx.createTopic("t", 3, 2, Map.of());
        int foreign = -1;
        for (Map.Entry<Integer, PartitionRegistration> e : ctx.topic("t").partitions().entrySet()) {
            if (!e.getValue().replicas().contains(VICTIM)) {
                foreign = e.getKey();
            }
        }
        long index = ctx.image.index();
        List<OfflineReplica> bogus = new ArrayList<>();
        bogus.add(OfflineReplica.newBuilder().setTopicId(com.google.protobuf.ByteString.copyFrom(new byte[16])).setPartition(0).build());
        bogus.add(OfflineReplica.newBuilder().setTopicId(com.google.protobuf.ByteString.copyFromUtf8("short")).build());
        bogus.add(replica(ctx, "t", 99));
        if (foreign >= 0) {
            bogus.add(replica(ctx, "t", foreign));
        }
        BrokerHeartbeatResponse resp = reportOffline(ctx, VICTIM, bogus);
        assertThat(resp.getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.image.index()).isEqualTo(index);
    }
}
