package io.raftline.broker.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.client.admin.BrokerDescription;
import io.raftline.client.admin.ClusterOverview;
import io.raftline.client.admin.ClusterOverview.PartitionView;
import io.raftline.client.admin.ClusterOverview.TopicView;
import io.raftline.client.admin.QuorumInfo;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A cluster of 3 brokers and 2,500 partitions: what one refresh of each page sends. */
class ConsoleViewsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final ConsoleViews views = new ConsoleViews(JSON);

    private static ClusterOverview cluster() {
        List<TopicView> topics = new ArrayList<>();
        topics.add(topic("big", 2000));
        for (int i = 0; i < 250; i++) {
            topics.add(topic(String.format("orders-%03d", i), 2));
        }
        List<BrokerDescription> brokers = List.of(new BrokerDescription(1, "h", 1, null, "active", 1),
            new BrokerDescription(2, "h", 2, null, "active", 1), new BrokerDescription(3, "h", 3, null, "fenced", 1));
        return new ClusterOverview("c", 1, brokers, new QuorumInfo(1, 1, 1, 10, List.of(), List.of()), topics, List.of(), null);
    }

    /** Partition p led by broker 1 + p % 3 on replicas {1, 2}; every tenth is under-replicated, none offline. */
    private static TopicView topic(String name, int partitions) {
        List<PartitionView> ps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            boolean under = p % 10 == 0;
            ps.add(new PartitionView(name, p, 1 + p % 2, 0, List.of(1, 2), under ? List.of(1) : List.of(1, 2),
                under ? List.of(2) : List.of(), 5L, 0L, 5L, 100L, under, false, List.of()));
        }
        return new TopicView(name, "id-" + name, false, ps);
    }

    @Test
    void theSummaryCountsWithoutCarryingAPartition() {
        JsonNode doc = views.summary(cluster());
        assertThat(doc.has("topics")).isFalse();
        assertThat(doc.get("topicCount").asInt()).isEqualTo(251);
        assertThat(doc.get("partitionCount").asInt()).isEqualTo(2500);
        assertThat(doc.get("underReplicated").asInt()).isEqualTo(200 + 250);
        assertThat(doc.get("offline").asInt()).isZero();
        assertThat(doc.get("topicNames")).hasSize(251);
        JsonNode b1 = doc.get("brokers").get(0);
        assertThat(b1.get("id").asInt()).isEqualTo(1);
        assertThat(b1.get("leaders").asInt()).isEqualTo(1000 + 250);
        assertThat(b1.get("replicas").asInt()).isEqualTo(2500);
        assertThat(doc.get("brokers").get(2).get("replicas").asInt()).isZero();
        assertThat(doc.toString()).doesNotContain("\"isr\"");
    }

    @Test
    void aTopicSendsOnePageOfItsPartitions() {
        TopicView big = cluster().topic("big");
        JsonNode first = views.topic(big, null, null);
        assertThat(first.get("partitionCount").asInt()).isEqualTo(2000);
        assertThat(first.get("underReplicated").asInt()).isEqualTo(200);
        assertThat(first.get("partitions")).hasSize(ConsolePage.DEFAULT_LIMIT);
        assertThat(first.get("next").asInt()).isEqualTo(100);
        assertThat(first.get("previous").isNull()).isTrue();
        JsonNode last = views.topic(big, 1950L, 100L);
        assertThat(last.get("partitions")).hasSize(50);
        assertThat(last.get("partitions").get(0).get("partition").asInt()).isEqualTo(1950);
        assertThat(last.get("next").isNull()).isTrue();
        assertThat(last.get("previous").asInt()).isEqualTo(1850);
    }

    @Test
    void topicsAreFilteredThenPaged() {
        JsonNode doc = views.topics(cluster(), "ORDERS-1", 0L, 20L);
        assertThat(doc.get("total").asInt()).as("orders-100 to orders-199").isEqualTo(100);
        assertThat(doc.get("topics")).hasSize(20);
        JsonNode row = doc.get("topics").get(0);
        assertThat(row.get("topic").asText()).isEqualTo("orders-100");
        assertThat(row.get("partitions").asInt()).isEqualTo(2);
        assertThat(row.get("replicationFactor").asInt()).isEqualTo(2);
        assertThat(row.get("underReplicated").asInt()).isEqualTo(1);
        assertThat(row.get("sizeBytes").asLong()).isEqualTo(200);
        assertThat(views.topics(cluster(), null, null, null).get("total").asInt()).isEqualTo(251);
        assertThat(views.topics(cluster(), "nothing", null, null).get("topics")).isEmpty();
    }
}
