package io.raftline.tests.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.ConsumerGroupDescription;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A group of three consumer processes on six partitions, against a 3-node cluster: two partitions each; SIGKILL one
 * and its partitions move to the others after the session timeout; SIGKILL the coordinator's node and the group goes
 * on with a new coordinator and its committed offsets. Throughout, at-least-once processing (print, then commit)
 * loses no record, and no committed offset ever goes backwards.
 */
@Timeout(300)
class GroupFailoverIT {

    private static final String TOPIC = "failover-orders";
    private static final String GROUP = "failover-g";
    private static final int SESSION_MS = 3000;

    private static TestCluster cluster;
    private static Admin admin;
    private static RaftlineProducer<String, String> producer;
    private final List<ConsumerProcess> consumers = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.builder().combined(3)
            .config("group.min.session.timeout.ms", "1000")
            .config("group.initial.rebalance.delay.ms", "0")
            .config("offsets.topic.num.partitions", "6")
            .config("offsets.topic.replication.factor", "3")
            .start();
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", cluster.bootstrap());
        admin = Admin.create(p);
        admin.createTopics(List.of(new NewTopic(TOPIC, Optional.of(6), Optional.of((short) 3)))).all().get(60, TimeUnit.SECONDS);
        producer = new RaftlineProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    @AfterAll
    static void stop() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void produce(int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            producer.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i));
        }
        producer.flush();
    }

    private Set<String> consumedValues() {
        Set<String> all = new HashSet<>();
        consumers.forEach(c -> all.addAll(c.values));
        return all;
    }

    private static Set<String> expected(int n) {
        Set<String> out = new HashSet<>();
        for (int i = 0; i < n; i++) {
            out.add("v" + i);
        }
        return out;
    }

    private static ConsumerGroupDescription describe() {
        try {
            return admin.describeConsumerGroups(List.of(GROUP)).get(GROUP).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            return null;
        }
    }

    @Test
    void killedConsumerAndKilledCoordinatorLoseNothingAndOffsetsNeverGoBack() throws Exception {
        produce(0, 300);
        for (int i = 0; i < 3; i++) {
            consumers.add(new ConsumerProcess(cluster.bootstrap(), GROUP, TOPIC, "member-" + i, SESSION_MS));
        }
        Map<TopicPartition, Long> highest = new ConcurrentHashMap<>();
        List<String> wentBack = new CopyOnWriteArrayList<>();
        Thread watcher = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Map<TopicPartition, OffsetAndMetadata> now = admin.listConsumerGroupOffsets(GROUP).get(10, TimeUnit.SECONDS);
                    now.forEach((tp, o) -> {
                        Long before = highest.get(tp);
                        if (before != null && o.offset() < before) {
                            wentBack.add(tp + ": " + before + " -> " + o.offset());
                        }
                        highest.merge(tp, o.offset(), Math::max);
                    });
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // the coordinator is moving: ask again
                }
            }
        }, "offset-watcher");
        watcher.setDaemon(true);
        watcher.start();
        try {
            TestCluster.await(() -> consumers.stream().allMatch(c -> c.assignedCount() == 2), Duration.ofSeconds(60),
                "three members with two partitions each: " + consumers.stream().map(ConsumerProcess::assignment).toList());
            ConsumerGroupDescription d = describe();
            assertThat(d).isNotNull();
            assertThat(d.state()).isEqualTo("Stable");
            assertThat(d.members()).hasSize(3).allSatisfy(m -> assertThat(m.assignment()).hasSize(2));
            TestCluster.await(() -> consumedValues().containsAll(expected(300)), Duration.ofSeconds(60), "the first 300 records");

            // kill -9 one consumer: after the session timeout its two partitions move to the other two.
            ConsumerProcess victim = consumers.get(0);
            long killedAt = System.nanoTime();
            victim.kill9();
            produce(300, 600);
            List<ConsumerProcess> alive = consumers.subList(1, 3);
            TestCluster.await(() -> alive.stream().allMatch(c -> c.assignedCount() == 3), Duration.ofSeconds(60),
                "the survivors to own three partitions each: " + alive.stream().map(ConsumerProcess::assignment).toList());
            long movedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            System.out.println("partitions of the killed consumer moved after " + movedMs + " ms (session.timeout.ms " + SESSION_MS + ")");
            TestCluster.await(() -> consumedValues().containsAll(expected(600)), Duration.ofSeconds(60), "records 0-599");

            // kill -9 the coordinator's node: a new coordinator takes the group, with its offsets.
            ConsumerGroupDescription before = describe();
            assertThat(before).isNotNull();
            int coordinatorId = before.coordinator().id();
            Map<TopicPartition, Long> committedBefore = Map.copyOf(highest);
            TestNode coordinatorNode = cluster.node(coordinatorId);
            coordinatorNode.kill();
            produce(600, 900);
            TestCluster.await(() -> {
                ConsumerGroupDescription now = describe();
                return now != null && now.coordinator().id() != coordinatorId && now.state().equals("Stable");
            }, Duration.ofSeconds(90), "a new coordinator with a stable group");
            TestCluster.await(() -> consumedValues().containsAll(expected(900)), Duration.ofSeconds(90), "records 0-899");
            Map<TopicPartition, OffsetAndMetadata> after = admin.listConsumerGroupOffsets(GROUP).get(30, TimeUnit.SECONDS);
            committedBefore.forEach((tp, o) ->
                assertThat(after.get(tp).offset()).as("committed offset of " + tp).isGreaterThanOrEqualTo(o));
            // Every record was processed, and in the end committed: the offsets add up to the 900 records.
            TestCluster.await(() -> {
                try {
                    return admin.listConsumerGroupOffsets(GROUP).get(10, TimeUnit.SECONDS).values().stream()
                        .mapToLong(OffsetAndMetadata::offset).sum() == 900;
                } catch (Exception e) {
                    return false;
                }
            }, Duration.ofSeconds(60), "committed offsets covering all 900 records");
            assertThat(wentBack).as("committed offsets that went backwards").isEmpty();
            coordinatorNode.start();
        } finally {
            watcher.interrupt();
            consumers.forEach(ConsumerProcess::close);
        }
    }
}
