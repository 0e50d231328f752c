package io.raftline.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.AlterPartitionRequest;
import io.raftline.protocol.controller.AlterPartitionResponse;
import io.raftline.protocol.controller.RegisterBrokerRequest;
import io.raftline.protocol.metadata.Endpoint;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * KIP-903 on the controller's side: an ISR expansion names the broker epoch each joining member fetched with, and a
 * member that has restarted since (a new registration, possibly with less data) is refused. Found by the replication
 * simulation: a delayed expansion, committed after the follower had restarted with a lost tail, made it an ISR
 * member without the committed records, and it was then elected.
 */
class AlterPartitionBrokerEpochTest {

    @Test
    void aJoiningMemberMustStillBeTheIncarnationTheLeaderSawFetch() {
        ControllerTestContext ctx = new ControllerTestContext();
        ctx.startBrokers(3);
        ctx.createTopic("t", 1, 3, Map.of());
        int leader = ctx.partition("t", 0).leader();
        int follower = ctx.partition("t", 0).replicas().stream().filter(r -> r != leader).findFirst().orElseThrow();
        ControllerTest.shrinkIsrTo(ctx, "t", leader);
        long seen = ctx.image.broker(follower).orElseThrow().epoch();

        // The follower restarts: a new incarnation, a new broker epoch.
        long now = ctx.run(ctx.controller.registerBroker(ctx.image, RegisterBrokerRequest.newBuilder()
            .setClusterId(ControllerTestContext.CLUSTER).setBrokerId(follower).setIncarnationId("restarted")
            .setMaxSupportedMetadataVersion(1).addEndpoints(Endpoint.newBuilder().setName("broker").setHost("h").setPort(1))
            .build())).getBrokerEpoch();
        ctx.heartbeat(follower, now);
        assertThat(now).isNotEqualTo(seen);

        assertThat(expand(ctx, leader, follower, seen).getError().getCode()).as("fetched by the previous incarnation")
            .isEqualTo(ErrorCode.INELIGIBLE_REPLICA);
        assertThat(ctx.partition("t", 0).isr()).containsExactly(leader);
        assertThat(expand(ctx, leader, follower, now).getError().getCode()).as("fetched by the current one")
            .isEqualTo(ErrorCode.NONE);
        assertThat(ctx.partition("t", 0).isr()).contains(leader, follower);
    }

    private static AlterPartitionResponse.PartitionResult expand(ControllerTestContext ctx, int leader, int follower,
                                                                 long followerEpoch) {
        TopicImage t = ctx.topic("t");
        PartitionRegistration p = t.partition(0);
        List<Integer> isr = p.replicas().stream().filter(r -> r == leader || r == follower).toList();
        AlterPartitionRequest.PartitionIsr.Builder change = AlterPartitionRequest.PartitionIsr.newBuilder()
            .setTopicId(PartitionControl.idBytes(t.id())).setPartition(0).setLeaderEpoch(p.leaderEpoch())
            .setPartitionEpoch(p.partitionEpoch()).addAllNewIsr(isr);
        for (int r : isr) {
            change.addNewIsrBrokerEpochs(r == leader ? -1 : followerEpoch);
        }
        return ctx.run(ctx.controller.alterPartition(ctx.image, AlterPartitionRequest.newBuilder().setBrokerId(leader)
            .setBrokerEpoch(ctx.image.broker(leader).orElseThrow().epoch()).addPartitions(change).build())).getPartitions(0);
    }
}
