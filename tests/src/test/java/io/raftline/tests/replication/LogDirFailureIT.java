package io.raftline.tests.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several log dirs per broker, one of them failing for real: 3 combined nodes with two log dirs each; one broker's
 * first dir is replaced by a plain file (as when a disk vanishes: every later file operation in it fails). That
 * broker takes the dir offline, reports its replicas there, and the controller moves those leaderships and ISR
 * places away, while the broker stays unfenced and keeps leading and following the partitions in its other dir.
 */
@Timeout(600)
class LogDirFailureIT {

    private static final String TOPIC = "dirs";
    private static final int PARTITIONS = 6;

    private static TestCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3)
            .config("log.dirs", TestNode.NODE_DIR + "/data-a," + TestNode.NODE_DIR + "/data-b")
            // Checkpoints touch every dir every half second, so a dead dir is noticed without traffic.
            .config("log.flush.offset.checkpoint.interval.ms", "500")
            .start();
        admin = cluster.admin();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static List<TopicPartitionInfo> describe() {
        try {
            return admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).partitions();
        } catch (Exception e) {
            return List.of();
        }
    }

    private static boolean contains(List<Node> nodes, int id) {
        return nodes.stream().anyMatch(n -> n.id() == id);
    }

    /** The partitions of the topic whose directory is in {@code logDir}. */
    private static Set<Integer> partitionsIn(Path logDir) throws Exception {
        Set<Integer> out = new HashSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            if (Files.isDirectory(logDir.resolve(TOPIC + "-" + p))) {
                out.add(p);
            }
        }
        return out;
    }

    @Test
    void aFailedDirLosesItsLeadershipsAndIsrPlacesWhileTheOtherDirKeepsServing() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
            .all().get();
        TestCluster.await(() -> {
            List<TopicPartitionInfo> ps = describe();
            return ps.size() == PARTITIONS && ps.stream().allMatch(p -> p.leader() != null && p.isr().size() == 3);
        }, Duration.ofSeconds(60), TOPIC + " to have leaders and full ISRs");
        produceToEveryPartition("before");

        // The victim: a broker leading a partition in data-a, preferably also one in data-b.
        TestNode victim = null;
        Set<Integer> failing = Set.of();
        Set<Integer> healthy = Set.of();
        for (TestNode node : cluster.nodes()) {
            Set<Integer> a = partitionsIn(node.dir().resolve("data-a"));
            Set<Integer> b = partitionsIn(node.dir().resolve("data-b"));
            assertThat(a.size() + b.size()).as("node %d holds every partition (RF 3 on 3 nodes)", node.id()).isEqualTo(PARTITIONS);
            assertThat(a).as("node %d spreads its partitions over both dirs", node.id()).isNotEmpty();
            assertThat(b).as("node %d spreads its partitions over both dirs", node.id()).isNotEmpty();
            boolean leadsInA = describe().stream().anyMatch(p -> a.contains(p.partition()) && p.leader().id() == node.id());
            boolean leadsInB = describe().stream().anyMatch(p -> b.contains(p.partition()) && p.leader().id() == node.id());
            if (leadsInA && (victim == null || leadsInB)) {
                victim = node;
                failing = a;
                healthy = b;
            }
        }
        assertThat(victim).as("some broker leads a partition in its data-a").isNotNull();
        int id = victim.id();
        Map<Integer, Integer> leadersBefore = new HashMap<>();
        describe().forEach(p -> leadersBefore.put(p.partition(), p.leader().id()));
        System.out.println("victim broker " + id + ", failing dir holds " + failing + ", healthy dir holds " + healthy
            + ", leaders " + leadersBefore);

        // The disk "vanishes": the directory is replaced by a plain file.
        Path dataA = victim.dir().resolve("data-a");
        Files.move(dataA, victim.dir().resolve("data-a.failed"));
        Files.writeString(dataA, "not a directory any more");

        Set<Integer> failingFinal = failing;
        Set<Integer> healthyFinal = healthy;
        TestCluster.await(() -> {
            List<TopicPartitionInfo> ps = describe();
            return ps.size() == PARTITIONS && ps.stream().filter(p -> failingFinal.contains(p.partition()))
                .allMatch(p -> p.leader() != null && p.leader().id() != id && !contains(p.isr(), id));
        }, Duration.ofSeconds(60), "the partitions in broker " + id + "'s failed dir to move their leadership and ISR away");

        // The broker itself stays up and unfenced; its other dir keeps its leaderships and ISR places.
        assertThat(victim.isRunning()).isTrue();
        assertThat(victim.isReady()).as("broker %d stays ready (unfenced)", id).isTrue();
        for (TopicPartitionInfo p : describe()) {
            if (healthyFinal.contains(p.partition())) {
                assertThat(p.isr()).as("partition %d in the healthy dir", p.partition()).anyMatch(n -> n.id() == id);
                if (leadersBefore.get(p.partition()) == id) {
                    assertThat(p.leader().id()).as("partition %d led from the healthy dir", p.partition()).isEqualTo(id);
                }
            }
        }

        // Every partition still takes acks=all writes and serves them; the healthy dir's replicas keep up.
        produceToEveryPartition("after");
        Map<Integer, List<String>> values = consumeEveryPartition(2);
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(values.get(p)).as("partition %d", p).containsExactly("before-" + p, "after-" + p);
        }
        TestCluster.await(() -> describe().stream().filter(p -> healthyFinal.contains(p.partition()))
            .allMatch(p -> contains(p.isr(), id)), Duration.ofSeconds(30), "broker " + id + " to stay in the healthy dir's ISRs");

        // Restarted with the dir still broken, the node refuses to start with one line naming the dir, and creates
        // nothing in its other dir (an empty replacement of a lost replica could later be elected).
        victim.stop(Duration.ofSeconds(60));
        victim.start();
        TestNode stopped = victim;
        TestCluster.await(() -> !stopped.isRunning(), Duration.ofSeconds(60), "broker " + id + " to refuse to start");
        assertThat(victim.exitCode()).isNotZero();
        assertThat(Files.readString(victim.dir().resolve("logs/console.out"))).contains("error: directory " + dataA);
        assertThat(partitionsIn(victim.dir().resolve("data-b"))).as("broker %d's healthy dir", id).isEqualTo(healthyFinal);

        // The disk comes back (or is replaced and formatted): the broker starts, catches up and rejoins every ISR.
        Files.delete(dataA);
        Files.move(victim.dir().resolve("data-a.failed"), dataA);
        victim.start();
        TestCluster.await(victim::isReady, Duration.ofSeconds(90), "broker " + id + " ready with both dirs");
        TestCluster.await(() -> describe().stream().allMatch(p -> contains(p.isr(), id)), Duration.ofSeconds(60),
            "broker " + id + " back in every ISR");
        assertThat(consumeEveryPartition(2)).allSatisfy((p, v) -> assertThat(v).containsExactly("before-" + p, "after-" + p));
    }

    private static void produceToEveryPartition(String prefix) throws Exception {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", cluster.bootstrap());
        props.setProperty("acks", "all");
        props.setProperty("delivery.timeout.ms", "60000");
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(props, new StringSerializer(),
            new StringSerializer())) {
            for (int p = 0; p < PARTITIONS; p++) {
                producer.send(new ProducerRecord<>(TOPIC, p, null, prefix + "-" + p)).get();
            }
        }
    }

    private static Map<Integer, List<String>> consumeEveryPartition(int perPartition) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", cluster.bootstrap());
        Map<Integer, List<String>> out = new HashMap<>();
        try (RaftlineConsumer<String, String> consumer = new RaftlineConsumer<>(props, new StringDeserializer(),
            new StringDeserializer())) {
            List<TopicPartition> tps = new java.util.ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                tps.add(new TopicPartition(TOPIC, p));
                out.put(p, new java.util.ArrayList<>());
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (out.values().stream().anyMatch(l -> l.size() < perPartition) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    out.get(r.partition()).add(r.value());
                }
            }
        }
        return out;
    }
}
