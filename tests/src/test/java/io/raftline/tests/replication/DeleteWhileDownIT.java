package io.raftline.tests.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.admin.TopicDescription;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Topic deletion reaches a broker that was down when it happened (issue 6, item 6), with real processes: when the
 * broker returns, the partition directories of a deleted topic go, and those of a topic deleted and re-created
 * under the same name (told apart by the topic id in {@code partition.metadata}) are replaced by empty ones, so no
 * broker ever shows the old records under the new topic. A directory whose {@code partition.metadata} is torn (what a
 * crash before the log's first flush may leave, as that file is fsynced with the log's first flush) is dropped the
 * same way, not reused for the re-created topic.
 */
@Timeout(600)
class DeleteWhileDownIT {

    private static final String GONE = "gone";
    private static final String REBORN = "reborn";
    private static final String TORN = "torn";

    private static TestCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).config("replica.lag.time.max.ms", "5000").start();
        admin = cluster.admin();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Properties props() {
        return cluster.clientProperties();
    }

    private static void produce(String topic, int partitions, String prefix, int count, String acks) throws Exception {
        Properties props = props();
        props.setProperty("acks", acks);
        props.setProperty("delivery.timeout.ms", "60000");
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(props, new StringSerializer(),
            new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null, prefix + i)).get();
            }
        }
    }

    private static TopicDescription describe(String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    }

    private static void awaitLeaders(String topic) {
        TestCluster.await(() -> {
            try {
                return describe(topic).partitions().stream().allMatch(p -> p.leader() != null);
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(60), topic + " to have leaders");
    }

    /** Every directory under the node's log dir whose name starts with {@code topic-} (deletion renames included). */
    private static List<Path> anyDirOf(TestNode node, String topic) throws Exception {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> children = Files.list(ReplicaFiles.dataDir(node))) {
            children.filter(p -> p.getFileName().toString().startsWith(topic + "-")).forEach(out::add);
        }
        return out;
    }

    @Test
    void aBrokerDownDuringTheDeleteDropsTheDeletedAndTheRecreatedTopicsOldData() throws Exception {
        admin.createTopics(List.of(new NewTopic(GONE, 2, (short) 3), new NewTopic(REBORN, 1, (short) 3),
            new NewTopic(TORN, 1, (short) 3))).all().get();
        awaitLeaders(GONE);
        awaitLeaders(REBORN);
        awaitLeaders(TORN);
        String oldId = describe(REBORN).topicId();
        produce(GONE, 2, "old-", 100, "all");
        produce(REBORN, 1, "old-", 100, "all");
        produce(TORN, 1, "old-", 50, "all");
        TestNode down = cluster.node(3);
        TestCluster.await(() -> ReplicaFiles.records(down, REBORN, 0).size() == 100
                && ReplicaFiles.records(down, TORN, 0).size() == 50
                && ReplicaFiles.records(down, GONE, 0).size() + ReplicaFiles.records(down, GONE, 1).size() == 100,
            Duration.ofSeconds(60), "node 3 to hold every record");
        down.kill();
        // As a crash before the log's first flush may leave it: the rename survived, the content did not.
        Files.writeString(ReplicaFiles.dataDir(down).resolve(TORN + "-0").resolve("partition.metadata"), "version: 0\n",
            StandardCharsets.UTF_8);

        admin.deleteTopics(List.of(GONE, REBORN, TORN)).all().get();
        for (TestNode node : List.of(cluster.node(1), cluster.node(2))) {
            TestCluster.await(() -> {
                try {
                    return anyDirOf(node, GONE).isEmpty() && anyDirOf(node, REBORN).isEmpty();
                } catch (Exception e) {
                    return false;
                }
            }, Duration.ofSeconds(60), "node " + node.id() + " to remove the deleted topics' directories");
        }
        assertThat(ReplicaFiles.partitionDirs(down, GONE)).as("node 3 was down: its copies are still there").hasSize(2);
        assertThat(ReplicaFiles.records(down, REBORN, 0)).hasSize(100);

        // The same name again, with node 3 (registered, fenced while down) among the replicas: a new topic id.
        admin.createTopics(List.of(new NewTopic(REBORN, Map.of(0, List.of(1, 2, 3))), new NewTopic(TORN, Map.of(0, List.of(1, 2, 3)))))
            .all().get();
        awaitLeaders(REBORN);
        awaitLeaders(TORN);
        String tornId = describe(TORN).topicId();
        String newId = describe(REBORN).topicId();
        assertThat(newId).isNotEqualTo(oldId);
        produce(REBORN, 1, "new-", 20, "1");
        produce(TORN, 1, "new-", 10, "1");

        down.start();
        cluster.awaitReady(Duration.ofSeconds(90));
        TestCluster.await(() -> {
            try {
                return anyDirOf(down, GONE).isEmpty();
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(60), "node 3 to remove the directories of the topic deleted while it was down");
        for (TestNode node : cluster.nodes()) {
            TestCluster.await(() -> ReplicaFiles.records(node, REBORN, 0).size() == 20, Duration.ofSeconds(60),
                "node " + node.id() + " to hold the re-created topic's 20 records");
            assertThat(ReplicaFiles.records(node, REBORN, 0).values()).as("node %d, re-created %s", node.id(), REBORN)
                .allMatch(v -> v.startsWith("new-"));
            String metadata = Files.readString(ReplicaFiles.dataDir(node).resolve(REBORN + "-0").resolve("partition.metadata"),
                StandardCharsets.UTF_8);
            assertThat(metadata).as("node %d, partition.metadata", node.id()).contains("topic_id: " + newId);
            TestCluster.await(() -> ReplicaFiles.records(node, TORN, 0).size() == 10, Duration.ofSeconds(60),
                "node " + node.id() + " to hold the re-created " + TORN + "'s 10 records");
            assertThat(ReplicaFiles.records(node, TORN, 0).values()).as("node %d, re-created %s", node.id(), TORN)
                .allMatch(v -> v.startsWith("new-"));
            assertThat(Files.readString(ReplicaFiles.dataDir(node).resolve(TORN + "-0").resolve("partition.metadata"),
                StandardCharsets.UTF_8)).as("node %d, %s partition.metadata", node.id(), TORN).contains("topic_id: " + tornId);
        }
        TestCluster.await(() -> {
            try {
                return anyDirOf(down, REBORN).size() == 1;
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(60), "node 3 to finish deleting the old " + REBORN + " directory");

        // Through a consumer, from the beginning: only the new records, at offsets 0..19.
        List<String> seen = new ArrayList<>();
        try (RaftlineConsumer<String, String> consumer = new RaftlineConsumer<>(props(), new StringDeserializer(),
            new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(REBORN, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            TestCluster.await(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    seen.add(r.offset() + ":" + r.value());
                }
                return seen.size() >= 20;
            }, Duration.ofSeconds(60), "a consumer to read the re-created topic");
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.add(i + ":new-" + i);
        }
        assertThat(seen).isEqualTo(expected);
    }
}
