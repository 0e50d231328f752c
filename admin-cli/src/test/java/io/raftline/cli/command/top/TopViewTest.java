package io.raftline.cli.command.top;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.admin.BrokerDescription;
import io.raftline.client.admin.ClusterOverview;
import io.raftline.client.admin.ClusterOverview.GroupOffset;
import io.raftline.client.admin.ClusterOverview.GroupView;
import io.raftline.client.admin.ClusterOverview.PartitionView;
import io.raftline.client.admin.ClusterOverview.TopicView;
import io.raftline.client.admin.QuorumInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopViewTest {

    private static PartitionView partition(String topic, int p, long leo, List<Integer> isr) {
        return new PartitionView(topic, p, isr.isEmpty() ? -1 : isr.get(0), 1, List.of(1, 2, 3), isr,
            List.of(1, 2, 3).stream().filter(r -> !isr.contains(r)).toList(), leo, 0L, leo, leo * 10, isr.size() < 3,
            isr.isEmpty(), List.of());
    }

    private static ClusterOverview overview(long a0, long a1, long b0, List<Integer> b0Isr) {
        List<BrokerDescription> brokers = List.of(new BrokerDescription(1, "h", 1, null, "active", 1),
            new BrokerDescription(2, "h", 2, null, "active", 1), new BrokerDescription(3, "h", 3, "r3", "fenced", 1));
        QuorumInfo quorum = new QuorumInfo(1, 4, 4, 100, List.of(), List.of());
        List<TopicView> topics = List.of(
            new TopicView("a", "id-a", false, List.of(partition("a", 0, a0, List.of(1, 2, 3)), partition("a", 1, a1, List.of(2, 1, 3)))),
            new TopicView("b", "id-b", false, List.of(partition("b", 0, b0, b0Isr))));
        List<GroupView> groups = List.of(new GroupView("g1", "Stable", 1, "range", List.of(),
            List.of(new GroupOffset("a", 0, 5L, a0, a0 - 5), new GroupOffset("a", 1, null, a1, null)), a0 - 5, null));
        return new ClusterOverview("cid", 1, brokers, quorum, topics, groups, null);
    }

    @Test
    void withoutAnEarlierReadingTheLargestLogsComeFirst() {
        List<TopView.Busy> busy = TopView.busiest(overview(10, 300, 20, List.of(1, 2, 3)), null, 0, 2);
        assertThat(busy).extracting(b -> b.partition().topic() + "-" + b.partition().partition()).containsExactly("a-1", "b-0");
        assertThat(busy).allMatch(b -> b.recordsPerSec() == null);
    }

    @Test
    void withAnEarlierReadingTheFastestGrowingComeFirst() {
        ClusterOverview before = overview(10, 300, 20, List.of(1, 2, 3));
        ClusterOverview now = overview(1010, 310, 20, List.of(1, 2, 3));
        List<TopView.Busy> busy = TopView.busiest(now, before, 2000, 3);
        assertThat(busy).extracting(b -> b.partition().topic() + "-" + b.partition().partition()).containsExactly("a-0", "a-1", "b-0");
        assertThat(busy).extracting(TopView.Busy::recordsPerSec).containsExactly(500.0, 5.0, 0.0);
    }

    @Test
    void aFrameShowsEverySection() {
        String frame = TopView.render(overview(100, 300, 20, List.of(1)), null, 0, 10);
        assertThat(frame).startsWith("raftline top - cluster cid, controller 1, quorum leader 1 term 4, brokers 3 (2 active), "
            + "partitions 3 (1 under-replicated, 0 offline), groups 1");
        assertThat(frame).contains("BROKERS", "BUSIEST PARTITIONS (by log end offset", "UNDER-REPLICATED PARTITIONS\n", "GROUP LAG\n");
        assertThat(frame.lines()).anyMatch(l -> l.matches("b\\s+0\\s+1\\s+1,2,3\\s+1\\s+2,3"));
        assertThat(frame.lines()).anyMatch(l -> l.matches("g1\\s+Stable\\s+1\\s+0\\s+95\\s+a-0 \\(95\\)"));
        assertThat(frame.lines()).anyMatch(l -> l.matches("3\\s+h:3\\s+r3\\s+fenced\\s+0"));
        assertThat(TopView.render(overview(100, 300, 20, List.of(1, 2, 3)), null, 0, 10))
            .contains("UNDER-REPLICATED PARTITIONS: none");
    }
}
