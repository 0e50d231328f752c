package io.raftline.client.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.admin.ClusterOverview.GroupView;
import io.raftline.client.admin.ClusterOverview.PartitionView;
import io.raftline.client.admin.ClusterOverview.TopicView;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.OffsetAndMetadata;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure parts of the overview: a partition's view from metadata and replica logs, a group's lag rows. */
class ClusterOverviewTest {

    private static Node n(int id) {
        return new Node(id, "h", 9000 + id, null);
    }

    private static ReplicaLogInfo log(int broker, int partition, boolean leader, long leo, long hw) {
        return new ReplicaLogInfo(broker, new TopicPartition("t", partition), leader, 0, leo, hw, leo * 100);
    }

    @Test
    void partitionsCarryTheLeadersOffsetsAndEachReplicasLag() {
        TopicDescription d = new TopicDescription("t", false, List.of(
            new TopicPartitionInfo(1, n(2), 3, List.of(n(2), n(3), n(1)), List.of(n(2), n(1)), List.of(), List.of()),
            new TopicPartitionInfo(0, n(1), 1, List.of(n(1), n(2), n(3)), List.of(n(1), n(2), n(3)), List.of(), List.of()),
            new TopicPartitionInfo(2, null, 5, List.of(n(3), n(1), n(2)), List.of(n(3)), List.of(), List.of())), "id");
        Map<TopicPartition, Map<Integer, ReplicaLogInfo>> logs = Map.of(
            new TopicPartition("t", 0), Map.of(1, log(1, 0, true, 10, 10), 2, log(2, 0, false, 10, 10), 3, log(3, 0, false, 10, 9)),
            new TopicPartition("t", 1), Map.of(2, log(2, 1, true, 50, 40), 1, log(1, 1, false, 40, 40)));
        TopicView t = ClusterOverview.topicView(d, logs, Map.of(1, "active", 2, "active", 3, "fenced"));

        assertThat(t.partitions()).extracting(PartitionView::partition).containsExactly(0, 1, 2);
        PartitionView p0 = t.partitions().get(0);
        assertThat(p0.underReplicated()).isFalse();
        assertThat(p0.offline()).isFalse();
        assertThat(p0.highWatermark()).isEqualTo(10L);
        assertThat(p0.sizeBytes()).isEqualTo(1000L);

        PartitionView p1 = t.partitions().get(1);
        assertThat(p1.underReplicated()).isTrue();
        assertThat(p1.osr()).containsExactly(3);
        assertThat(p1.logEndOffset()).isEqualTo(50L);
        assertThat(p1.replicaStates()).extracting(ClusterOverview.ReplicaView::brokerId).containsExactly(2, 3, 1);
        assertThat(p1.replicaStates().get(0).leader()).isTrue();
        assertThat(p1.replicaStates().get(1).brokerState()).isEqualTo("fenced");
        assertThat(p1.replicaStates().get(1).logEndOffset()).as("a broker that did not answer").isNull();
        assertThat(p1.replicaStates().get(2).lagRecords()).isEqualTo(10L);

        PartitionView p2 = t.partitions().get(2);
        assertThat(p2.offline()).isTrue();
        assertThat(p2.leader()).isEqualTo(-1);
        assertThat(p2.highWatermark()).as("no leader, no offsets").isNull();
        assertThat(t.underReplicatedCount()).isEqualTo(2);
        assertThat(t.offlineCount()).isEqualTo(1);
    }

    @Test
    void aGroupsLagIsTheHighWatermarkMinusItsCommitAndNullWithoutOne() {
        ConsumerGroupDescription d = new ConsumerGroupDescription("g", "Stable", "consumer", "range", 4, n(2), List.of(
            new MemberDescription("m1", "c1", "/h", List.of(new TopicPartition("t", 1), new TopicPartition("t", 0)))));
        Map<TopicPartition, OffsetAndMetadata> committed = Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(7),
            new TopicPartition("u", 0), new OffsetAndMetadata(5));
        Map<TopicPartition, Long> hw = Map.of(new TopicPartition("t", 0), 10L, new TopicPartition("t", 1), 4L,
            new TopicPartition("u", 0), 5L);
        GroupView g = ClusterOverview.groupView(d, committed, hw);

        assertThat(g.coordinator()).isEqualTo(2);
        assertThat(g.offsets()).containsExactly(
            new ClusterOverview.GroupOffset("t", 0, 7L, 10L, 3L),
            new ClusterOverview.GroupOffset("t", 1, null, 4L, null),
            new ClusterOverview.GroupOffset("u", 0, 5L, 5L, 0L));
        assertThat(g.totalLag()).isEqualTo(3);
        assertThat(g.members()).singleElement().satisfies(m -> assertThat(m.assignment()).hasSize(2));
    }
}
