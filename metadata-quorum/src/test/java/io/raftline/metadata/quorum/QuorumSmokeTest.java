package io.raftline.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.raftline.metadata.controller.ControllerConfig;
import io.raftline.metadata.controller.ControllerResult;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreateTopicsRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class QuorumSmokeTest {

    @Test
    @Timeout(60)
    void threeNodesElectAControllerAndCommitWrites() throws Exception {
        try (TestQuorum q = new TestQuorum(3, "smoke", 1000, ControllerConfig.defaults())) {
            QuorumNode leader = q.awaitActive();
            // The leader replicates through QuorumRpc's appender (one per follower), not Ratis's stock one.
            assertThat(leader.quorumServer().rpcHooks().appenders()).isGreaterThanOrEqualTo(2);
            assertThat(leader.image().controllerId()).isEqualTo(leader.nodeId());
            var c = leader.controllerPort();
            assertThat(c).isPositive();
            long t0 = System.nanoTime();
            ActiveController ac = leader.activeController();
            for (int i = 0; i < 50; i++) {
                int n = i;
                var r = ac.submit(image -> leader.activeController().controller().createTopics(image, CreateTopicsRequest
                    .newBuilder().addTopics(CreatableTopic.newBuilder().setName("t" + n).setNumPartitions(1)
                        .setReplicationFactor(1)).build()), false).get();
                assertThat(r.response().getTopics(0).getError().getCode().getNumber()).isNotNegative();
            }
            System.out.println("50 writes in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            long idx = leader.image().index();
            await().atMost(Duration.ofSeconds(10)).until(() -> q.nodes.values().stream().allMatch(n -> n.image().index() >= idx));
            assertThat(q.nodes.values()).allMatch(n -> n.image().topicIdsByName().equals(leader.image().topicIdsByName()));
            ControllerResult<?> unused = null;
            assertThat(unused).isNull();
        }
    }
}
