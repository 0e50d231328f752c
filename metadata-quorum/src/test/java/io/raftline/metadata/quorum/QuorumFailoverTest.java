package io.raftline.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.raftline.common.SystemTime;
import io.raftline.common.TestPorts;
import io.raftline.metadata.client.ControllerChannel;
import io.raftline.metadata.client.MetadataFollower;
import io.raftline.metadata.controller.ControllerConfig;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.AddVoterRequest;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.protocol.controller.DescribeQuorumRequest;
import io.raftline.protocol.controller.DescribeQuorumResponse;
import io.raftline.protocol.controller.ReadIndexResponse;
import io.raftline.protocol.controller.RemoveVoterRequest;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real 3-voter Ratis quorums on loopback: leader loss, snapshots, a wiped node, membership changes. */
class QuorumFailoverTest {

    static CreateTopicsRequest topic(String name) {
        return CreateTopicsRequest.newBuilder().addTopics(CreatableTopic.newBuilder().setName(name).setNumPartitions(1)
            .setReplicationFactor(1)).build();
    }

    static void registerOneBroker(ControllerChannel channel, String clusterId) throws Exception {
        var r = channel.registerBroker(io.raftline.protocol.controller.RegisterBrokerRequest.newBuilder().setClusterId(clusterId)
            .setBrokerId(100).setIncarnationId("x").setMaxSupportedMetadataVersion(1).build(), 10_000).get(15, TimeUnit.SECONDS);
        assertThat(r.getError().getCode()).isEqualTo(ErrorCode.NONE);
        // Caught up immediately: report a huge metadata offset.
        var h = channel.brokerHeartbeat(io.raftline.protocol.controller.BrokerHeartbeatRequest.newBuilder().setBrokerId(100)
            .setBrokerEpoch(r.getBrokerEpoch()).setMetadataOffset(Long.MAX_VALUE).build(), 10_000).get(15, TimeUnit.SECONDS);
        assertThat(h.getIsFenced()).isFalse();
    }

    @Test
    @Timeout(120)
    void killedLeaderIsReplacedWritesGoOnAndFollowersFollow() throws Exception {
        // A long session so that the test's one fake broker is not fenced while the quorum changes leader.
        ControllerConfig cc = ControllerConfig.builder().brokerSessionTimeoutMs(60_000).build();
        try (TestQuorum q = new TestQuorum(3, "failover", 10_000, cc);
             ControllerChannel channel = new ControllerChannel(q.controllerEndpoints(), SystemTime.INSTANCE, 20_000);
             MetadataFollower follower = new MetadataFollower(7, q.controllerEndpoints(), SystemTime.INSTANCE)) {
            QuorumNode leader = q.awaitActive();
            follower.start();
            registerOneBroker(channel, q.clusterId);
            for (int i = 0; i < 20; i++) {
                CreateTopicsResponse r = channel.createTopics(topic("before-" + i)).get(10, TimeUnit.SECONDS);
                assertThat(r.getTopics(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
                follower.awaitIndex(r.getMetadataIndex()).get(10, TimeUnit.SECONDS);
            }
            int oldEpoch = leader.image().controllerEpoch();
            DescribeQuorumResponse d = channel.describeQuorum(DescribeQuorumRequest.getDefaultInstance()).get(10, TimeUnit.SECONDS);
            assertThat(d.getLeaderId()).isEqualTo(leader.nodeId());
            assertThat(d.getVotersCount()).isEqualTo(3);
            assertThat(d.getControllerEpoch()).isEqualTo(oldEpoch);

            long killedAt = System.nanoTime();
            q.stop(leader.nodeId());
            CreateTopicsResponse after = channel.createTopics(topic("after-kill")).get(20, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - killedAt) / 1_000_000;
            System.out.println("first write after closing the leader: " + ms + " ms (includes Ratis close, ~1 s)");
            assertThat(after.getTopics(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
            QuorumNode newLeader = q.awaitActive();
            assertThat(newLeader.nodeId()).isNotEqualTo(leader.nodeId());
            assertThat(newLeader.image().controllerEpoch()).isGreaterThan(oldEpoch);
            assertThat(newLeader.image().controllerId()).isEqualTo(newLeader.nodeId());

            // The follower keeps following (it may have been streaming from the dead node).
            follower.awaitIndex(after.getMetadataIndex()).get(15, TimeUnit.SECONDS);
            assertThat(follower.currentImage().topic("after-kill")).isPresent();
            assertThat(follower.currentImage().topicIdsByName().keySet()).hasSize(21);

            // A channel that only knows a follower is redirected to the controller by the NOT_CONTROLLER hint.
            QuorumNode aFollower = q.nodes.values().stream().filter(n -> !n.isActiveController()).findFirst().orElseThrow();
            try (ControllerChannel viaFollower = new ControllerChannel(
                List.of(new InetSocketAddress("127.0.0.1", aFollower.controllerPort())), SystemTime.INSTANCE, 20_000)) {
                assertThat(viaFollower.createTopics(topic("via-follower")).get(20, TimeUnit.SECONDS).getTopics(0).getError()
                    .getCode()).isEqualTo(ErrorCode.NONE);
            }

            // A linearizable read point from any node covers the write.
            ReadIndexResponse read = channel.readIndex().get(10, TimeUnit.SECONDS);
            assertThat(read.getIndex()).isGreaterThanOrEqualTo(after.getMetadataIndex());
        }
    }

    @Test
    @Timeout(120)
    void restartFromSnapshotAndAWipedNodeRejoins() throws Exception {
        try (TestQuorum q = new TestQuorum(3, "snapshots", 20, ControllerConfig.builder().brokerSessionTimeoutMs(60_000).build(),
                50);
             ControllerChannel channel = new ControllerChannel(q.controllerEndpoints(), SystemTime.INSTANCE, 20_000)) {
            q.awaitActive();
            registerOneBroker(channel, q.clusterId);
            long last = 0;
            for (int i = 0; i < 120; i++) {
                last = channel.createTopics(topic("t" + i)).get(10, TimeUnit.SECONDS).getMetadataIndex();
            }
            long lastIndex = last;
            await().atMost(Duration.ofSeconds(10)).until(() -> q.nodes.values().stream().allMatch(n -> n.image().index() >= lastIndex
                && n.stateMachine().snapshotIndex() > 0));
            var expected = q.nodes.get(1).image().topicIdsByName();

            // A new follower starting from scratch gets a snapshot first: the nodes keep only 50 entries in memory.
            try (MetadataFollower fresh = new MetadataFollower(9, q.controllerEndpoints(), SystemTime.INSTANCE)) {
                fresh.start();
                fresh.awaitIndex(lastIndex).get(20, TimeUnit.SECONDS);
                assertThat(fresh.currentImage().topicIdsByName()).isEqualTo(expected);
            }

            // A wiped node comes back as a new member (see WipedVoterTest: as a voter it is refused): demoted to an
            // observer, it starts empty and is sent a snapshot (its log was purged on the others), then is promoted.
            int victim = q.nodes.keySet().stream().filter(id -> !q.nodes.get(id).isActiveController()).findFirst().orElseThrow();
            await().atMost(Duration.ofSeconds(30)).until(() -> q.nodes.get(victim).image().voterDirectories().containsKey(victim));
            q.stop(victim);
            q.wipe(victim);
            for (int i = 0; i < 30; i++) {
                last = channel.createTopics(topic("while-away-" + i)).get(10, TimeUnit.SECONDS).getMetadataIndex();
            }
            assertThat(channel.removeVoter(RemoveVoterRequest.newBuilder().setId(victim).build()).get(30, TimeUnit.SECONDS)
                .getError().getCode()).isEqualTo(ErrorCode.NONE);
            QuorumNode back = q.start(victim);
            long target = last;
            await().atMost(Duration.ofSeconds(30)).until(() -> back.image().index() >= target);
            assertThat(back.image().topicIdsByName()).hasSize(150);
            assertThat(back.image().topicIdsByName()).containsAllEntriesOf(expected);
            assertThat(channel.addVoter(AddVoterRequest.newBuilder().setId(victim)
                .setEndpoint("127.0.0.1:" + q.voters.get(victim).getPort()).build()).get(60, TimeUnit.SECONDS)
                .getError().getCode()).isEqualTo(ErrorCode.NONE);

            // Everyone restarts: images come back from snapshot + log.
            var before = q.nodes.get(back.nodeId()).image();
            for (int id : List.copyOf(q.nodes.keySet())) {
                q.stop(id);
            }
            for (int id = 1; id <= 3; id++) {
                q.start(id);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> q.nodes.values().stream()
                .allMatch(n -> n.image().index() >= before.index()));
            for (QuorumNode n : q.nodes.values()) {
                assertThat(n.image().topicIdsByName()).isEqualTo(before.topicIdsByName());
                assertThat(n.stateMachine().snapshotIndex()).isPositive();
            }
            q.awaitActive();
        }
    }

    @Test
    @Timeout(120)
    void addAndRemoveAVoter() throws Exception {
        try (TestQuorum q = new TestQuorum(3, "membership", 1000, ControllerConfig.builder().brokerSessionTimeoutMs(60_000).build());
             ControllerChannel channel = new ControllerChannel(q.controllerEndpoints(), SystemTime.INSTANCE, 30_000)) {
            q.awaitActive();
            registerOneBroker(channel, q.clusterId);
            for (int i = 0; i < 10; i++) {
                channel.createTopics(topic("t" + i)).get(10, TimeUnit.SECONDS);
            }
            InetSocketAddress fourth = new InetSocketAddress("127.0.0.1", TestPorts.free());
            QuorumNode n4 = q.startNew(4, fourth);
            var added = channel.addVoter(AddVoterRequest.newBuilder().setId(4).setEndpoint("127.0.0.1:" + fourth.getPort()).build())
                .get(40, TimeUnit.SECONDS);
            assertThat(added.getError().getCode()).as(added.getError().getMessage()).isEqualTo(ErrorCode.NONE);
            await().atMost(Duration.ofSeconds(20)).until(() -> n4.image().topicIdsByName().size() == 10);
            DescribeQuorumResponse d = channel.describeQuorum(DescribeQuorumRequest.getDefaultInstance()).get(10, TimeUnit.SECONDS);
            assertThat(d.getVotersList()).extracting(DescribeQuorumResponse.Peer::getId).containsExactlyInAnyOrder(1, 2, 3, 4);

            int leaderId = d.getLeaderId();
            int toRemove = leaderId == 1 ? 2 : 1;
            var removed = channel.removeVoter(RemoveVoterRequest.newBuilder().setId(toRemove).build()).get(40, TimeUnit.SECONDS);
            assertThat(removed.getError().getCode()).as(removed.getError().getMessage()).isEqualTo(ErrorCode.NONE);
            DescribeQuorumResponse d2 = channel.describeQuorum(DescribeQuorumRequest.getDefaultInstance()).get(10, TimeUnit.SECONDS);
            assertThat(d2.getVotersList()).extracting(DescribeQuorumResponse.Peer::getId).doesNotContain(toRemove).hasSize(3);
            q.stop(toRemove);
            assertThat(channel.createTopics(topic("after-remove")).get(20, TimeUnit.SECONDS).getTopics(0).getError().getCode())
                .isEqualTo(ErrorCode.NONE);
        }
    }
}
