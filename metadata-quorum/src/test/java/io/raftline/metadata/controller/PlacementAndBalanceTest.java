package io.raftline.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.TopicPartition;
import io.raftline.protocol.controller.AlterPartitionReassignmentsRequest;
import io.raftline.protocol.controller.AlterPartitionRequest;
import io.raftline.protocol.controller.ElectLeadersRequest;
import io.raftline.protocol.controller.ElectLeadersResponse;
import io.raftline.protocol.controller.ElectionType;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlacementAndBalanceTest {

    @Test
    void placementSpreadsReplicasAndLeadersEvenlyAcrossTopics() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        for (int i = 0; i < 10; i++) {
            ctx.createTopic("t" + i, 1, 2, Map.of());
        }
        ctx.createTopic("wide", 20, 3, Map.of());
        Map<Integer, Integer> leaders = new HashMap<>();
        Map<Integer, Integer> replicas = new HashMap<>();
        for (TopicImage t : ctx.image.topicsById().values()) {
            for (PartitionRegistration p : t.partitions().values()) {
                leaders.merge(p.leader(), 1, Integer::sum);
                p.replicas().forEach(r -> replicas.merge(r, 1, Integer::sum));
                assertThat(new HashSet<>(p.replicas())).hasSameSizeAs(p.replicas());
            }
        }
        assertThat(leaders.values()).allMatch(n -> n == 10);
        assertThat(replicas.values().stream().mapToInt(Integer::intValue).max().getAsInt()
            - replicas.values().stream().mapToInt(Integer::intValue).min().getAsInt()).isLessThanOrEqualTo(1);
    }

    @Test
    void rackAwarePlacementPutsEachReplicaOnADifferentRack() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(6, "a", "a", "b", "b", "c", "c");
        ctx.createTopic("t", 12, 3, Map.of());
        Map<Integer, Integer> leaders = new HashMap<>();
        for (PartitionRegistration p : ctx.topic("t").partitions().values()) {
            List<String> racks = p.replicas().stream().map(r -> ctx.image.broker(r).orElseThrow().rack()).toList();
            assertThat(new HashSet<>(racks)).as("racks of %s", p.replicas()).hasSize(3);
            leaders.merge(p.leader(), 1, Integer::sum);
        }
        assertThat(leaders).hasSize(6);
        assertThat(leaders.values()).allMatch(n -> n == 2);
        ctx.createTopic("two", 6, 2, Map.of());
        for (PartitionRegistration p : ctx.topic("two").partitions().values()) {
            assertThat(ctx.image.broker(p.replicas().get(0)).orElseThrow().rack())
                .isNotEqualTo(ctx.image.broker(p.replicas().get(1)).orElseThrow().rack());
        }
    }

    @Test
    void preferredElectionOnDemandAndAutomaticBalance() {
        ControllerTestContext ctx = new ControllerTestContext(ControllerConfig.builder().leaderImbalanceCheckIntervalSeconds(5)
            .build(), 7);
        ctx.startBrokers(3);
        ctx.createTopic("t", 6, 3, Map.of());
        // Broker 1 dies and comes back: it has lost every leadership.
        for (int i = 0; i < 8; i++) {
            ctx.tick(250, 2, 3);
        }
        assertThat(ctx.image.broker(1).orElseThrow().fenced()).isTrue();
        ctx.heartbeat(1);
        expandIsr(ctx, "t", 1);
        assertThat(ctx.topic("t").partitions().values()).noneMatch(p -> p.leader() == 1);

        // On demand, for one partition.
        int p0Preferred = ctx.partition("t", 0).preferredLeader();
        ElectLeadersResponse resp = ctx.run(ctx.controller.electLeaders(ctx.image, ElectLeadersRequest.newBuilder()
            .setType(ElectionType.PREFERRED).addPartitions(TopicPartition.newBuilder().setTopic("t").setPartition(0)).build()));
        if (p0Preferred == 1) {
            assertThat(resp.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
            assertThat(ctx.partition("t", 0).leader()).isEqualTo(1);
        } else {
            assertThat(resp.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.ELECTION_NOT_NEEDED);
        }
        // Automatically, at the next imbalance check.
        for (int i = 0; i < 24; i++) {
            ctx.tick(250, 1, 2, 3);
        }
        for (PartitionRegistration p : ctx.topic("t").partitions().values()) {
            assertThat(p.leader()).isEqualTo(p.preferredLeader());
        }
        ElectLeadersResponse again = ctx.run(ctx.controller.electLeaders(ctx.image, ElectLeadersRequest.newBuilder()
            .setType(ElectionType.PREFERRED).build()));
        assertThat(again.getPartitionsList()).allMatch(r -> r.getError().getCode() == ErrorCode.ELECTION_NOT_NEEDED);
    }

    /** Every leader of `topic` reports `broker` back in its ISR. */
    static void expandIsr(ControllerTestContext ctx, String topic, int broker) {
        TopicImage t = ctx.topic(topic);
        t.partitions().forEach((n, p) -> {
            if (p.isr().contains(broker) || !p.replicas().contains(broker)) {
                return;
            }
            List<Integer> isr = new java.util.ArrayList<>(p.isr());
            isr.add(broker);
            var r = ctx.run(ctx.controller.alterPartition(ctx.image, AlterPartitionRequest.newBuilder().setBrokerId(p.leader())
                .setBrokerEpoch(ctx.image.broker(p.leader()).orElseThrow().epoch())
                .addPartitions(AlterPartitionRequest.PartitionIsr.newBuilder().setTopicId(PartitionControl.idBytes(t.id()))
                    .setPartition(n).setLeaderEpoch(p.leaderEpoch()).setPartitionEpoch(p.partitionEpoch()).addAllNewIsr(isr))
                .build()));
            assertThat(r.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
        });
    }

    @Test
    void reassignmentAddsWaitsForIsrMovesLeadershipAndDrops() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(4);
        ctx.createTopic("t", 1, 2, Map.of());
        PartitionRegistration before = ctx.partition("t", 0);
        List<Integer> target = List.of(1, 2, 3, 4).stream().filter(b -> !before.replicas().contains(b)).toList();
        var resp = ctx.run(ctx.controller.alterPartitionReassignments(ctx.image, AlterPartitionReassignmentsRequest.newBuilder()
            .addReassignments(AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
                .setPartition(TopicPartition.newBuilder().setTopic("t").setPartition(0))
                .setReplicas(PartitionRegistration.intList(target))).build()));
        assertThat(resp.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
        PartitionRegistration during = ctx.partition("t", 0);
        assertThat(during.reassigning()).isTrue();
        assertThat(during.replicas()).hasSize(4);
        assertThat(during.addingReplicas()).containsExactlyElementsOf(target);
        assertThat(during.removingReplicas()).containsExactlyInAnyOrderElementsOf(before.replicas());
        assertThat(during.leader()).isEqualTo(before.leader());
        ctx.settle();
        assertThat(ctx.partition("t", 0).reassigning()).as("waits for the ISR").isTrue();

        // The new replicas catch up one at a time; only when both are in the ISR does the move finish.
        expandIsrWith(ctx, target.get(0));
        assertThat(ctx.partition("t", 0).reassigning()).isTrue();
        expandIsrWith(ctx, target.get(1));
        PartitionRegistration after = ctx.partition("t", 0);
        assertThat(after.reassigning()).isFalse();
        assertThat(after.replicas()).containsExactlyElementsOf(target);
        assertThat(after.isr()).containsExactlyInAnyOrderElementsOf(target);
        assertThat(after.leader()).isEqualTo(target.get(0));
        assertThat(after.leaderEpoch()).isEqualTo(before.leaderEpoch() + 1);

        // Cancel: start another move and take it back.
        ctx.run(ctx.controller.alterPartitionReassignments(ctx.image, AlterPartitionReassignmentsRequest.newBuilder()
            .addReassignments(AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
                .setPartition(TopicPartition.newBuilder().setTopic("t").setPartition(0))
                .setReplicas(PartitionRegistration.intList(before.replicas()))).build()));
        assertThat(ctx.partition("t", 0).reassigning()).isTrue();
        var cancel = ctx.run(ctx.controller.alterPartitionReassignments(ctx.image, AlterPartitionReassignmentsRequest
            .newBuilder().addReassignments(AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
                .setPartition(TopicPartition.newBuilder().setTopic("t").setPartition(0))).build()));
        assertThat(cancel.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.partition("t", 0).replicas()).containsExactlyElementsOf(target);
        assertThat(ctx.partition("t", 0).reassigning()).isFalse();
        var cancelAgain = ctx.run(ctx.controller.alterPartitionReassignments(ctx.image, AlterPartitionReassignmentsRequest
            .newBuilder().addReassignments(AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
                .setPartition(TopicPartition.newBuilder().setTopic("t").setPartition(0))).build()));
        assertThat(cancelAgain.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
        var bad = ctx.run(ctx.controller.alterPartitionReassignments(ctx.image, AlterPartitionReassignmentsRequest.newBuilder()
            .addReassignments(AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
                .setPartition(TopicPartition.newBuilder().setTopic("t").setPartition(0))
                .setReplicas(PartitionRegistration.intList(List.of(1, 9)))).build()));
        assertThat(bad.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    }

    private static void expandIsrWith(ControllerTestContext ctx, int broker) {
        TopicImage t = ctx.topic("t");
        PartitionRegistration p = t.partition(0);
        List<Integer> isr = new java.util.ArrayList<>(p.isr());
        isr.add(broker);
        var r = ctx.run(ctx.controller.alterPartition(ctx.image, AlterPartitionRequest.newBuilder().setBrokerId(p.leader())
            .setBrokerEpoch(ctx.image.broker(p.leader()).orElseThrow().epoch())
            .addPartitions(AlterPartitionRequest.PartitionIsr.newBuilder().setTopicId(PartitionControl.idBytes(t.id()))
                .setPartition(0).setLeaderEpoch(p.leaderEpoch()).setPartitionEpoch(p.partitionEpoch()).addAllNewIsr(isr))
            .build()));
        assertThat(r.getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
    }
}
