package io.raftline.tests.observability;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.BrokerDescription;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.serialization.ByteArraySerializer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.tests.cluster.PrometheusText;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The metrics an operator watches, scraped from real nodes under real traffic: bytes and records in grow by what
 * was produced, under-replicated partitions rise when a follower dies and fall when it is back, the quorum reports
 * its elections and commit latency, and {@code /ready} stays false until a restarted broker has caught up.
 */
@Timeout(600)
class MetricsIT {

    private static TestCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).config("replica.lag.time.max.ms", "3000").start();
        admin = cluster.admin();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static double clusterSum(String name, Map<String, String> labels) {
        double total = 0;
        for (TestNode node : cluster.nodes()) {
            if (node.isRunning()) {
                total += PrometheusText.sum(node.scrapeMetrics(), name, labels);
            }
        }
        return total;
    }

    private static TopicPartitionInfo partition(String topic, int partition) {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(partition);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void createTopic(String topic, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 3))).all().get();
        TestCluster.await(() -> {
            for (int p = 0; p < partitions; p++) {
                TopicPartitionInfo info = partition(topic, p);
                if (info.leader() == null || info.isr().size() != 3) {
                    return false;
                }
            }
            return true;
        }, Duration.ofSeconds(30), topic + " to have leaders and full ISRs");
    }

    private static RaftlineProducer<byte[], byte[]> producer() {
        Properties props = cluster.clientProperties();
        props.setProperty("acks", "all");
        props.setProperty("compression.type", "none");
        return new RaftlineProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Test
    void bytesAndRecordsInGrowByWhatWasProduced() throws Exception {
        String topic = "metered";
        createTopic(topic, 3);
        Map<String, String> byTopic = Map.of("topic", topic);
        double bytesBefore = clusterSum("raftline_broker_bytes_in_total", byTopic);
        double recordsBefore = clusterSum("raftline_broker_messages_in_total", byTopic);
        double producesBefore = clusterSum("raftline_request_latency_seconds_count", Map.of("api", "produce"));
        int records = 3000;
        int valueSize = 1000;
        try (RaftlineProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, i % 3, null, new byte[valueSize]));
            }
            producer.flush();
        }
        double records1 = clusterSum("raftline_broker_messages_in_total", byTopic) - recordsBefore;
        double bytes1 = clusterSum("raftline_broker_bytes_in_total", byTopic) - bytesBefore;
        assertThat(records1).as("records in, over the leaders").isEqualTo(records);
        // Batches carry their headers and per-record framing on top of the values: a few percent, never less.
        assertThat(bytes1).as("bytes in, over the leaders").isBetween((double) records * valueSize, records * valueSize * 1.1);
        assertThat(clusterSum("raftline_request_latency_seconds_count", Map.of("api", "produce")))
            .isGreaterThan(producesBefore);
        // Followers fetched every byte: bytes out (consumers and followers) covers two copies of the data.
        TestCluster.await(() -> clusterSum("raftline_broker_bytes_out_total", byTopic) >= 2.0 * records * valueSize,
            Duration.ofSeconds(30), "followers' fetches to show in bytes out");
        // Request rates per API and topic: the producer's requests, and the followers' fetches of this topic.
        assertThat(clusterSum("raftline_broker_requests_total", Map.of("api", "produce", "topic", topic))).isPositive();
        assertThat(clusterSum("raftline_broker_requests_total", Map.of("api", "fetch_follower", "topic", topic))).isPositive();
        // Log end offsets are refreshed every few seconds: every replica of every partition reaches its share.
        TestCluster.await(() -> clusterSum("raftline_log_end_offset", byTopic) == 3.0 * records,
            Duration.ofSeconds(30), "log end offsets of all replicas to add up to three copies");
    }

    @Test
    void underReplicatedPartitionsRiseWhenAFollowerDiesAndFallWhenItReturns() throws Exception {
        String topic = "watched";
        createTopic(topic, 1);
        TopicPartitionInfo info = partition(topic, 0);
        TestNode leader = cluster.node(info.leader().id());
        TestNode follower = cluster.nodes().stream().filter(n -> n.id() != leader.id()).findFirst().orElseThrow();
        TestCluster.await(() -> gauge(leader, "raftline_partitions_under_replicated") == 0, Duration.ofSeconds(30),
            "no under-replicated partition on the leader before the kill");
        double expandsBefore = gauge(leader, "raftline_isr_expands_total");
        follower.kill();
        TestCluster.await(() -> gauge(leader, "raftline_partitions_under_replicated") >= 1, Duration.ofSeconds(30),
            "the leader to count " + topic + " under-replicated once node " + follower.id() + " is gone");
        follower.start();
        TestCluster.await(() -> follower.isReady() && gauge(leader, "raftline_partitions_under_replicated") == 0,
            Duration.ofSeconds(60), "under-replicated partitions back to 0 once node " + follower.id() + " is back");
        // The committed ISR often reaches the leader's metadata before the controller's answer, which is what counts.
        TestCluster.await(() -> gauge(leader, "raftline_isr_expands_total") > expandsBefore, Duration.ofSeconds(30),
            "the leader to count the ISR expansion that brought node " + follower.id() + " back");
    }

    @Test
    void theQuorumReportsElectionsAndCommitLatency() throws Exception {
        createTopic("quorum-metrics", 1);
        assertThat(clusterSum("raftline_controller_active", Map.of())).isEqualTo(1.0);
        for (TestNode node : cluster.nodes()) {
            if (node.isRunning()) {
                String scrape = node.scrapeMetrics();
                assertThat(PrometheusText.sum(scrape, "raftline_quorum_leader_elections_total")).isGreaterThanOrEqualTo(1);
                assertThat(PrometheusText.sum(scrape, "raftline_quorum_term")).isGreaterThanOrEqualTo(1);
                assertThat(PrometheusText.sum(scrape, "raftline_quorum_commit_index")).isGreaterThan(0);
            }
        }
        // The active controller timed the commit of the topic it just created.
        assertThat(clusterSum("raftline_quorum_commit_latency_seconds_count", Map.of())).isGreaterThan(0);
    }

    @Test
    void aRestartedBrokerIsNotReadyUntilItHasCaughtUp() throws Exception {
        TestNode node = cluster.node(3);
        node.stop(Duration.ofSeconds(60));
        // Metadata the stopped broker has not seen.
        List<NewTopic> topics = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            topics.add(new NewTopic("while-down-" + i, 1, (short) 2));
        }
        admin.createTopics(topics).all().get();
        double commitAtRestart = gauge(cluster.node(1), "raftline_quorum_commit_index");
        node.start();
        boolean sawNotReady = false;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        int status;
        do {
            status = node.readyStatus();
            sawNotReady |= status == 503;
            if (status != 200) {
                LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
            }
        } while (status != 200 && System.nanoTime() < deadline);
        assertThat(status).as("node 3 ready within 60 s (%s)", node.diagnose()).isEqualTo(200);
        // Once ready, it has the metadata written while it was down and the controller sees it unfenced.
        assertThat(gauge(node, "raftline_metadata_image_index")).isGreaterThanOrEqualTo(commitAtRestart);
        BrokerDescription self = admin.describeBrokers().get().stream().filter(b -> b.id() == 3).findFirst().orElseThrow();
        assertThat(self.state()).isNotEqualToIgnoringCase("fenced");
        assertThat(sawNotReady).as("/ready answered 503 while node 3 was catching up").isTrue();
    }

    private static double gauge(TestNode node, String name) {
        return PrometheusText.sum(node.scrapeMetrics(), name);
    }
}
