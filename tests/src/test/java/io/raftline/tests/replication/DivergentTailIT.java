package io.raftline.tests.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.client.producer.RecordMetadata;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A follower that was behind when its leader died truncates its divergent tail (issue 6, item 8), with real processes.
 *
 * <p>The divergence is built deterministically: with both followers of an RF 3 partition stopped (SIGSTOP), the leader
 * takes acks=1 records that no other replica has, then is killed (-9). The followers resume, one of them is elected
 * (its log ends before that tail) and takes new acks=all writes at the tail's offsets. When the old leader returns it
 * must drop its tail (OffsetsForLeaderEpoch, then truncate) and copy the new leader's records, so every replica ends
 * with the same record at every offset. Replicas are compared from their segment files, not through a consumer.
 */
@Timeout(600)
class DivergentTailIT {

    private static final String TOPIC = "divergent";

    private static TestCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void start() {
        // A long lag time: the paused followers stay in the ISR, so one of them is electable after the leader dies.
        cluster = TestCluster.builder().combined(3)
            .config("replica.lag.time.max.ms", "120000")
            .config("broker.session.timeout.ms", "3000")
            .start();
        admin = Admin.create(props(cluster.bootstrap()));
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Properties props(String bootstrap) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        return props;
    }

    private static RaftlineProducer<String, String> producer(String bootstrap, String acks) {
        Properties props = props(bootstrap);
        props.setProperty("acks", acks);
        props.setProperty("linger.ms", "0");
        props.setProperty("delivery.timeout.ms", "60000");
        props.setProperty("enable.idempotence", "false");
        return new RaftlineProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static TopicPartitionInfo describe() throws Exception {
        return admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).partitions().get(0);
    }

    /** Sends {@code count} records valued {@code prefix + i} and returns each one's acknowledged offset. */
    private static Map<String, Long> send(RaftlineProducer<String, String> producer, String prefix, int count) throws Exception {
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(producer.send(new ProducerRecord<>(TOPIC, 0, null, prefix + i)));
        }
        producer.flush();
        Map<String, Long> acked = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            acked.put(prefix + i, futures.get(i).get().offset());
        }
        return acked;
    }

    /** The leader's {@code raftline_fetch_parked{from="follower"}}. */
    private static int parkedFollowerFetches(TestNode node) {
        String prefix = "raftline_fetch_parked{from=\"follower\"";
        for (String line : node.scrapeMetrics().split("\n")) {
            if (line.startsWith(prefix)) {
                return (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no " + prefix + "} in the metrics of node " + node.id());
    }

    @Test
    void theOldLeaderDropsItsUnreplicatedTailAndEveryReplicaConverges() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
            .all().get();
        TestCluster.await(() -> {
            try {
                TopicPartitionInfo p = describe();
                return p.leader() != null && p.isr().size() == 3;
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(60), TOPIC + " to have a leader and a full ISR");
        TopicPartitionInfo before = describe();
        TestNode oldLeader = cluster.node(before.leader().id());
        List<TestNode> followers = before.replicas().stream().map(n -> cluster.node(n.id())).filter(n -> n != oldLeader).toList();
        String leaderOnly = "127.0.0.1:" + oldLeader.brokerPort();

        // 1. Records every replica has: acks=all.
        Map<String, Long> committed;
        try (RaftlineProducer<String, String> producer = producer(cluster.bootstrap(), "all")) {
            committed = send(producer, "committed-", 300);
        }
        long committedEnd = committed.values().stream().mapToLong(Long::longValue).max().orElseThrow() + 1;
        TestCluster.await(() -> followers.stream().allMatch(f -> ReplicaFiles.records(f, TOPIC, 0).size() == committedEnd),
            Duration.ofSeconds(60), "both followers to hold the " + committedEnd + " committed records");

        // 2. The tail only the leader gets: acks=1 with both followers stopped.
        Map<String, Long> tail;
        try (RaftlineProducer<String, String> producer = producer(leaderOnly, "1")) {
            send(producer, "warmup-", 1);
            // The warm-up record is acks=1 too, so it may or may not reach the followers before they stop: it is
            // part of neither the committed set nor the tail.
            TestCluster.await(() -> followers.stream().allMatch(f -> ReplicaFiles.records(f, TOPIC, 0).size() == committedEnd + 1),
                Duration.ofSeconds(60), "both followers to copy the warm-up record");
            followers.forEach(TestNode::pause);
            // A follower's long poll parked on the leader before the SIGSTOP would still carry the next append into
            // its socket buffer, to be applied on SIGCONT. One more record answers those polls; once the leader has
            // no follower fetch parked, nothing appended after is on its way to a follower.
            send(producer, "absorbed-", 1);
            TestCluster.await(() -> parkedFollowerFetches(oldLeader) == 0, Duration.ofSeconds(30),
                "the leader to answer the stopped followers' last fetches");
            tail = send(producer, "tail-", 200);
        }
        assertThat(ReplicaFiles.records(oldLeader, TOPIC, 0)).hasSize((int) committedEnd + 2 + 200);

        // 3. The leader dies with its tail; a follower is elected and takes new writes at the tail's offsets.
        oldLeader.kill();
        followers.forEach(TestNode::resume);
        TestCluster.await(() -> {
            try {
                TopicPartitionInfo p = describe();
                return p.leader() != null && p.leader().id() != oldLeader.id();
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(90), "a follower to be elected leader of " + TOPIC);
        String survivors = String.join(",", followers.stream().map(f -> "127.0.0.1:" + f.brokerPort()).toList());
        Map<String, Long> after;
        try (RaftlineProducer<String, String> producer = producer(survivors, "all")) {
            after = send(producer, "after-", 300);
        }
        assertThat(after.values().stream().mapToLong(Long::longValue).min().orElseThrow())
            .as("the new leader's writes reuse the offsets of the lost tail")
            .isLessThanOrEqualTo(tail.values().stream().mapToLong(Long::longValue).max().orElseThrow());

        // 4. The old leader returns as a follower: it truncates its tail and copies the new leader's records.
        oldLeader.start();
        cluster.awaitReady(Duration.ofSeconds(90));
        TestCluster.await(() -> {
            SortedMap<Long, String> first = ReplicaFiles.records(cluster.nodes().get(0), TOPIC, 0);
            return first.values().containsAll(after.keySet())
                && cluster.nodes().stream().allMatch(n -> ReplicaFiles.records(n, TOPIC, 0).equals(first));
        }, Duration.ofSeconds(90), "every replica to hold the same records, the new leader's writes included");

        for (TestNode node : cluster.nodes()) {
            SortedMap<Long, String> stored = ReplicaFiles.records(node, TOPIC, 0);
            assertThat(stored.values()).as("replica on node %d keeps none of the unreplicated tail", node.id())
                .noneMatch(v -> v.startsWith("tail-"));
            committed.forEach((value, offset) -> assertThat(stored.get(offset))
                .as("node %d, acks=all record %s at offset %d", node.id(), value, offset).isEqualTo(value));
            after.forEach((value, offset) -> assertThat(stored.get(offset))
                .as("node %d, acks=all record %s at offset %d", node.id(), value, offset).isEqualTo(value));
            assertThat(stored.firstKey()).isZero();
            assertThat(stored.lastKey()).isEqualTo(stored.size() - 1L);
        }
        TestCluster.await(() -> {
            try {
                return describe().isr().size() == 3;
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(60), "the old leader to rejoin the ISR");
    }
}
