package io.raftline.tests.observability;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.BrokerDescription;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.common.serialization.ByteArraySerializer;
import io.raftline.client.consumer.RaftlineConsumer;
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
import java.util.Set;
import java.util.TreeSet;
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

    /**
     * A Kafka client's traffic through kafka.listener counts in the same families as the SDK's: records and bytes in
     * on the leader, records out to consumers, and the followers' replication of them.
     */
    @Test
    void kafkaClientsTrafficIsCountedAsTheSdks() throws Exception {
        String topic = "metered-kafka";
        createTopic(topic, 1);
        Map<String, String> byTopic = Map.of("topic", topic);
        Map<String, String> consumers = Map.of("topic", topic, "traffic", "consumer");
        int records = 500;
        Map<String, String> produceApi = Map.of("api", "produce");
        Map<String, String> fetchApi = Map.of("api", "fetch_consumer");
        double producesBefore = clusterSum("raftline_request_latency_seconds_count", produceApi);
        double fetchesBefore = clusterSum("raftline_request_latency_seconds_count", fetchApi);
        double remoteBefore = clusterSum("raftline_request_remote_seconds_count", produceApi);
        java.util.Properties p = new java.util.Properties();
        p.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        p.setProperty("acks", "all");
        p.setProperty("compression.type", "none");
        try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> producer =
                 new org.apache.kafka.clients.producer.KafkaProducer<>(p,
                     new org.apache.kafka.common.serialization.ByteArraySerializer(),
                     new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, null, new byte[100]));
            }
            producer.flush();
        }
        assertThat(clusterSum("raftline_broker_messages_in_total", byTopic)).as("records in over kafka.listener")
            .isEqualTo(records);
        assertThat(clusterSum("raftline_broker_bytes_in_total", byTopic)).isGreaterThanOrEqualTo(records * 100.0);
        TestCluster.await(() -> clusterSum("raftline_replication_messages_in_total", byTopic) == 2.0 * records,
            Duration.ofSeconds(30), "both followers to count the records they replicated");
        java.util.Properties c = new java.util.Properties();
        c.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        c.setProperty("auto.offset.reset", "earliest");
        try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> consumer =
                 new org.apache.kafka.clients.consumer.KafkaConsumer<>(c,
                     new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                     new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            consumer.assign(List.of(new org.apache.kafka.common.TopicPartition(topic, 0)));
            int[] read = {0};
            TestCluster.await(() -> {
                read[0] += consumer.poll(Duration.ofMillis(200)).count();
                return read[0] >= records;
            }, Duration.ofSeconds(30), "the Kafka consumer to read the records");
        }
        assertThat(clusterSum("raftline_broker_messages_out_total", consumers)).as("records out to the Kafka consumer")
            .isGreaterThanOrEqualTo(records);
        assertThat(clusterSum("raftline_broker_bytes_out_total", consumers)).isGreaterThanOrEqualTo(records * 100.0);
        // and its requests count as the SDK's do: latency and phases per API, fetch requests per topic
        assertThat(clusterSum("raftline_request_latency_seconds_count", produceApi)).as("Kafka produce requests timed")
            .isGreaterThan(producesBefore);
        assertThat(clusterSum("raftline_request_remote_seconds_count", produceApi)).isGreaterThan(remoteBefore);
        assertThat(clusterSum("raftline_request_latency_seconds_count", fetchApi)).as("Kafka fetch requests timed")
            .isGreaterThan(fetchesBefore);
        assertThat(clusterSum("raftline_broker_requests_total", Map.of("api", "fetch_consumer", "topic", topic)))
            .isPositive();
        assertThat(clusterSum("raftline_requests_in_flight", produceApi)).as("none left in flight").isZero();
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

    /**
     * The controller's and the pools' figures have values that mean something: on the active controller every broker's
     * heartbeat is younger than the session timeout (NaN elsewhere) and events were timed; a new topic of 7 partitions
     * adds 1 and 7 to every node's image counts; the idle ratios are shares, within [0, 1].
     */
    @Test
    void theControllerAndThePoolsReportTheirLoad() throws Exception {
        TestCluster.await(() -> cluster.nodes().stream().filter(TestNode::isRunning)
            .filter(n -> gauge(n, "raftline_controller_active") == 1).count() == 1, Duration.ofSeconds(30), "one active controller");
        TestNode active = cluster.nodes().stream().filter(TestNode::isRunning)
            .filter(n -> gauge(n, "raftline_controller_active") == 1).findFirst().orElseThrow();
        TestCluster.await(() -> {
            String scrape = active.scrapeMetrics();
            for (TestNode broker : cluster.nodes()) {
                double age = PrometheusText.sum(scrape, "raftline_controller_broker_heartbeat_age_seconds",
                    Map.of("broker", Integer.toString(broker.id())));
                if (broker.isRunning() && !(age >= 0 && age < 1.5)) {
                    return false;
                }
            }
            return true;
        }, Duration.ofSeconds(30), "the active controller to see every running broker's heartbeat within 1.5 s");
        assertThat(gauge(active, "raftline_controller_event_processing_seconds_count")).isPositive();
        assertThat(gauge(active, "raftline_controller_event_queue_size")).isGreaterThanOrEqualTo(0);
        for (TestNode other : cluster.nodes()) {
            if (other.isRunning() && other.id() != active.id()) {
                assertThat(gauge(other, "raftline_controller_broker_heartbeat_age_seconds")).as("not the active controller")
                    .isNaN();
            }
        }

        Map<Integer, Double> topicsBefore = new java.util.HashMap<>();
        Map<Integer, Double> partitionsBefore = new java.util.HashMap<>();
        List<TestNode> running = cluster.nodes().stream().filter(TestNode::isRunning).toList();
        for (TestNode n : running) {
            topicsBefore.put(n.id(), gauge(n, "raftline_metadata_image_topics"));
            partitionsBefore.put(n.id(), gauge(n, "raftline_metadata_image_partitions"));
        }
        createTopic("image-size", 7);
        TestCluster.await(() -> running.stream().allMatch(n -> gauge(n, "raftline_metadata_image_topics")
                == topicsBefore.get(n.id()) + 1 && gauge(n, "raftline_metadata_image_partitions") == partitionsBefore.get(n.id()) + 7),
            Duration.ofSeconds(30), "every node's image to count the new topic and its 7 partitions");

        for (TestNode n : running) {
            TestCluster.await(() -> {
                String scrape = n.scrapeMetrics();
                return between01(PrometheusText.sum(scrape, "raftline_request_handler_idle_ratio", Map.of("pool", "grpc")))
                    && between01(PrometheusText.sum(scrape, "raftline_network_thread_idle_ratio", Map.of("listener", "broker")))
                    && between01(PrometheusText.sum(scrape, "raftline_network_thread_idle_ratio", Map.of("listener", "kafka")));
            }, Duration.ofSeconds(30), "node " + n.id() + "'s idle ratios to be shares");
        }
    }

    private static boolean between01(double v) {
        return v >= 0 && v <= 1;
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

    /**
     * docs/metrics.md lists what a scrape carries: after produce (acks=all) and a consumer group that commits, the
     * union of the running nodes' scrapes has every family the doc says appears always, with traffic or after a GC,
     * and every raftline_ family in it is in the doc.
     */
    @Test
    void aScrapeOfALoadedClusterHasEveryDocumentedFamily() throws Exception {
        String topic = "documented";
        createTopic(topic, 3);
        try (RaftlineProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < 3000; i++) {
                producer.send(new ProducerRecord<>(topic, i % 3, null, new byte[200]));
            }
            producer.flush();
        }
        try (RaftlineConsumer<byte[], byte[]> consumer = new RaftlineConsumer<>(cluster.clientProperties("group.id",
            "documented-group", "auto.offset.reset", "earliest", "enable.auto.commit", "false"),
            new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            int[] read = {0};
            TestCluster.await(() -> {
                read[0] += consumer.poll(Duration.ofMillis(200)).count();
                consumer.commitSync();
                return read[0] >= 3000;
            }, Duration.ofSeconds(60), "the group to read and commit the 3000 records");
            Map<String, String> rows = MetricsDoc.rows();
            Set<String> expected = new TreeSet<>();
            rows.forEach((family, appears) -> {
                if (!appears.equals("on error")) {
                    expected.add(family);
                }
            });
            assertThat(expected).hasSizeGreaterThan(60);
            // The per-partition and group gauges refresh every 5 s; the group's gauges show while it has members.
            Set<String> missing = new TreeSet<>();
            try {
                TestCluster.await(() -> {
                    missing.clear();
                    missing.addAll(expected);
                    missing.removeAll(scrapedFamilies());
                    consumer.poll(Duration.ofMillis(100));
                    return missing.isEmpty();
                }, Duration.ofSeconds(60), "every family docs/metrics.md lists to be in a scrape");
            } catch (AssertionError e) {
                // reported with the list below
            }
            assertThat(missing).as("families docs/metrics.md lists that no node's scrape carries").isEmpty();
        }
        Set<String> undocumented = new TreeSet<>();
        for (String family : scrapedFamilies()) {
            if (family.startsWith("raftline_") && !family.endsWith("_max")) {
                undocumented.add(family);
            }
        }
        undocumented.removeAll(MetricsDoc.families());
        assertThat(undocumented).as("raftline_ families in the scrape that docs/metrics.md does not list").isEmpty();
    }

    /** The families (names on # TYPE lines) in the scrapes of the running nodes. */
    private static Set<String> scrapedFamilies() {
        Set<String> out = new TreeSet<>();
        for (TestNode node : cluster.nodes()) {
            if (node.isRunning()) {
                for (String line : node.scrapeMetrics().lines().toList()) {
                    if (line.startsWith("# TYPE ")) {
                        out.add(line.split(" ")[2]);
                    }
                }
            }
        }
        return out;
    }

    private static double gauge(TestNode node, String name) {
        return PrometheusText.sum(node.scrapeMetrics(), name);
    }
}
