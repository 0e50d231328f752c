package io.raftline.client.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.errors.InvalidPartitionsException;
import io.raftline.client.errors.InvalidReplicationFactorException;
import io.raftline.client.errors.InvalidTopicException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.errors.TopicExistsException;
import io.raftline.client.errors.UnknownTopicOrPartitionException;
import io.raftline.client.testing.FakeCluster;
import io.raftline.protocol.ErrorCode;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class AdminTest {

    private FakeCluster cluster;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        cluster = FakeCluster.start(3);
        admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrap(), "retry.backoff.ms", 10, "default.api.timeout.ms", 5000));
    }

    @AfterEach
    void stop() throws Exception {
        admin.close();
        cluster.close();
    }

    private static Throwable cause(Throwable t) {
        return t instanceof ExecutionException ? t.getCause() : t;
    }

    @Test
    void createListDescribeDeleteTopics() throws Exception {
        admin.createTopics(List.of(new NewTopic("orders", 3, (short) 2).configs(Map.of("retention.ms", "1000")))).all()
            .get(10, TimeUnit.SECONDS);
        assertThat(admin.listTopics().names().get()).containsExactly("orders");
        TopicDescription d = admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders");
        assertThat(d.partitions()).hasSize(3);
        assertThat(d.topicId()).hasSize(22);
        assertThat(d.partitions().get(1).leader().id()).isEqualTo(2);
        assertThat(d.partitions().get(0).replicas()).extracting(n -> n.id()).containsExactly(1, 2, 3);
        Config config = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, "orders"))).all().get()
            .get(new ConfigResource(ConfigResource.Type.TOPIC, "orders"));
        assertThat(config.get("retention.ms").value()).isEqualTo("1000");
        assertThat(config.get("retention.ms").source()).isEqualTo("topic");
        admin.deleteTopics(List.of("orders")).all().get();
        assertThat(admin.listTopics().names().get()).isEmpty();
    }

    @Test
    void itemErrorsAreTypedAndCarryTheBrokersMessage() throws Exception {
        admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get();
        CreateTopicsResult r = admin.createTopics(List.of(new NewTopic("t", 1, (short) 1), new NewTopic("bad/name", 1, (short) 1),
            new NewTopic("zero", 0, (short) 1), new NewTopic("wide", 1, (short) 5), new NewTopic("ok", 2, (short) 3)));
        assertThatThrownBy(() -> r.values().get("t").get()).satisfies(e -> assertThat(cause(e))
            .isInstanceOf(TopicExistsException.class).hasMessage("Topic 't' already exists."));
        assertThatThrownBy(() -> r.values().get("bad/name").get()).satisfies(e -> assertThat(cause(e))
            .isInstanceOf(InvalidTopicException.class));
        assertThatThrownBy(() -> r.values().get("zero").get()).satisfies(e -> assertThat(cause(e))
            .isInstanceOf(InvalidPartitionsException.class));
        assertThatThrownBy(() -> r.values().get("wide").get()).satisfies(e -> assertThat(cause(e))
            .isInstanceOf(InvalidReplicationFactorException.class));
        r.values().get("ok").get();
        assertThatThrownBy(() -> admin.describeTopics(List.of("missing")).allTopicNames().get()).satisfies(e -> assertThat(cause(e))
            .isInstanceOf(UnknownTopicOrPartitionException.class));
    }

    @Test
    void oneDescribeOfManyTopicsAnswersEachWithItsOwnPartitionsAndFailsOnlyTheMissingOne() throws Exception {
        admin.createTopics(List.of(new NewTopic("d1", 1, (short) 1), new NewTopic("d2", 2, (short) 2),
            new NewTopic("d3", 3, (short) 3))).all().get(10, TimeUnit.SECONDS);
        DescribeTopicsResult r = admin.describeTopics(List.of("d3", "missing", "d1", "d2"));
        assertThat(r.topicNameValues().get("d1").get().partitions()).hasSize(1);
        assertThat(r.topicNameValues().get("d2").get().partitions()).extracting(TopicPartitionInfo::partition)
            .containsExactly(0, 1);
        TopicDescription d3 = r.topicNameValues().get("d3").get();
        assertThat(d3.name()).isEqualTo("d3");
        assertThat(d3.partitions()).extracting(TopicPartitionInfo::partition).containsExactly(0, 1, 2);
        assertThat(d3.partitions().get(0).replicas()).hasSize(3);
        assertThatThrownBy(() -> r.topicNameValues().get("missing").get()).satisfies(e -> assertThat(cause(e))
            .isInstanceOf(UnknownTopicOrPartitionException.class));
    }

    @Test
    void anExplicitAssignmentGoesOutInPartitionOrder() throws Exception {
        // NewTopic's map has no order; the controller refuses partitions out of order (the fake does too)
        Map<Integer, List<Integer>> assignment = new HashMap<>();
        for (int p = 0; p < 40; p++) {
            assignment.put(p, List.of(p % 3 + 1));
        }
        admin.createTopics(List.of(new NewTopic("placed", assignment))).all().get(10, TimeUnit.SECONDS);
        assertThat(admin.describeTopics(List.of("placed")).allTopicNames().get().get("placed").partitions()).hasSize(40);
    }

    @Test
    void retriableTopLevelErrorsAreRetriedUntilTheyClear() throws Exception {
        cluster.injectAdminErrors(ErrorCode.NOT_CONTROLLER, ErrorCode.LEADER_NOT_AVAILABLE);
        admin.createTopics(List.of(new NewTopic("r", 1, (short) 1))).all().get(10, TimeUnit.SECONDS);
        assertThat(admin.listTopics().names().get()).contains("r");
    }

    @Test
    void retriesEndAtTheDeadlineWithATimeout() throws Exception {
        for (int i = 0; i < 1000; i++) {
            cluster.injectAdminErrors(ErrorCode.NOT_CONTROLLER);
        }
        long start = System.nanoTime();
        CreateTopicsOptions options = new CreateTopicsOptions().timeoutMs(300);
        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("x", 1, (short) 1)), options).all().get())
            .satisfies(e -> assertThat(cause(e)).isInstanceOf(TimeoutException.class).hasMessageContaining("NOT_CONTROLLER"));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5000);
    }

    @Test
    void partitionsConfigsElectionsReassignmentsQuorumLogs() throws Exception {
        admin.createTopics(List.of(new NewTopic("p", 2, (short) 3))).all().get();
        admin.createPartitions(Map.of("p", NewPartitions.increaseTo(4))).all().get();
        assertThat(admin.describeTopics(List.of("p")).allTopicNames().get().get("p").partitions()).hasSize(4);
        assertThatThrownBy(() -> admin.createPartitions(Map.of("p", NewPartitions.increaseTo(2))).all().get())
            .satisfies(e -> assertThat(cause(e)).isInstanceOf(InvalidPartitionsException.class));

        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, "p");
        admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"),
            AlterConfigOp.OpType.SET)))).all().get();
        assertThat(admin.describeConfigs(List.of(res)).all().get().get(res).get("cleanup.policy").value()).isEqualTo("compact");

        TopicPartition tp = new TopicPartition("p", 0);
        cluster.moveLeader("p", 0, 2);
        Map<TopicPartition, Optional<Throwable>> elected = admin.electLeaders(ElectionType.PREFERRED, Set.of(tp, new TopicPartition("p", 1)))
            .partitions().get();
        assertThat(elected.get(tp)).isEmpty();
        assertThat(elected.get(new TopicPartition("p", 1))).isPresent();

        admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(1, 2))))).all().get();
        PartitionReassignment ra = admin.listPartitionReassignments().reassignments().get().get(tp);
        assertThat(ra.removingReplicas()).containsExactly(3);
        admin.alterPartitionReassignments(Map.of(tp, Optional.empty())).all().get();
        assertThat(admin.listPartitionReassignments().reassignments().get()).isEmpty();

        QuorumInfo q = admin.describeMetadataQuorum().quorumInfo().get();
        assertThat(q.leaderId()).isEqualTo(1);
        assertThat(q.voters()).hasSize(3);

        DescribeClusterResult dc = admin.describeCluster();
        assertThat(dc.nodes().get()).extracting(n -> n.id()).containsExactly(1, 2, 3);
        assertThat(dc.controller().get().id()).isEqualTo(1);

        Map<TopicPartition, ReplicaLogInfo> logs = admin.describeLogs(null, Duration.ofSeconds(2)).leaderLogs().get();
        assertThat(logs).containsKeys(tp, new TopicPartition("p", 3));
        assertThat(logs.get(tp).logEndOffset()).isZero();
    }
}
