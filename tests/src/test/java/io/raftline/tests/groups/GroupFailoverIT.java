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
import io.raftline.client.producer.RecordMetadata;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A group of three consumer processes on six partitions, against a 3-node cluster: two partitions each; SIGKILL one
 * and its partitions move to the others after the session timeout; SIGKILL the coordinator's node and the group goes
 * on with a new coordinator and its committed offsets. Throughout, at-least-once processing (print, then commit)
 * loses no record, and no committed offset ever goes backwards.
 *
 * <p>Tagged "system" (a fault run of several minutes); {@link GroupCoordinatorFailoverIT} is its short version in the
 * default run. The coordinator scenario used to lose a partition: when a refresh of the consumer's metadata failed
 * before its completion handler was attached (a dead broker answers at once), the SDK kept that finished future as
 * the refresh "in flight" and never refreshed again, so a partition whose leader died stayed with the dead leader.
 * The consumers' logs (with their metadata refreshes at DEBUG) stay under the cluster root for diagnosis.
 */
@Tag("system")
@Timeout(300)
class GroupFailoverIT {

    private static String topic;
    private static String group;
    private static final int SESSION_MS = 3000;

    private static TestCluster cluster;
    private static Admin admin;
    private static RaftlineProducer<String, String> producer;
    private final List<ConsumerProcess> consumers = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.builder().combined(3).groupTesting(6)
            .start();
        admin = cluster.admin();
        producer = new RaftlineProducer<>(cluster.clientProperties(), new StringSerializer(), new StringSerializer());
    }

    @AfterAll
    static void stop() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Where each produced value went ("partition:offset"), to say which partitions a failure is about. */
    private static final Map<String, String> WHERE = new ConcurrentHashMap<>();

    private static void produce(int from, int to) throws Exception {
        List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = from; i < to; i++) {
            sent.add(producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)));
        }
        producer.flush();
        for (int i = from; i < to; i++) {
            // every record is in the log before the consumers are asked for it
            RecordMetadata md = sent.get(i - from).get(120, TimeUnit.SECONDS);
            WHERE.put("v" + i, md.partition() + ":" + md.offset());
        }
    }

    private static long committedSum() {
        try {
            return admin.listConsumerGroupOffsets(group).get(10, TimeUnit.SECONDS).values().stream()
                .mapToLong(OffsetAndMetadata::offset).sum();
        } catch (Exception e) {
            return -1;
        }
    }

    private void awaitConsumed(int n, Duration timeout) {
        try {
            TestCluster.await(() -> consumedValues().containsAll(expected(n)), timeout, "records 0-" + (n - 1));
        } catch (AssertionError e) {
            Set<String> missing = expected(n);
            missing.removeAll(consumedValues());
            Map<String, List<String>> byPartition = new java.util.TreeMap<>();
            missing.forEach(v -> {
                String where = WHERE.getOrDefault(v, "?:?");
                byPartition.computeIfAbsent("p" + where.split(":")[0], k -> new ArrayList<>()).add(where.split(":")[1]);
            });
            byPartition.values().forEach(l -> l.sort(java.util.Comparator.comparingLong(Long::parseLong)));
            throw new AssertionError(e.getMessage() + "; " + missing.size() + " missing, by partition (offsets) " + byPartition
                + "; assignments " + consumers.stream().map(ConsumerProcess::assignment).toList()
                + "; consumers' status " + consumers.stream().map(ConsumerProcess::status).toList()
                + "; highest offsets read " + consumers.stream().map(ConsumerProcess::highestOffsets).toList()
                + "; group " + describe(), e);
        }
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
            return admin.describeConsumerGroups(List.of(group)).get(group).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            return null;
        }
    }

    @Test
    void aKilledConsumersPartitionsMoveAndNothingIsLost() throws Exception {
        scenario("failover-orders", "failover-g", false);
    }

    @Test
    void aKilledCoordinatorIsReplacedAndTheGroupGoesOn() throws Exception {
        scenario("coordinator-orders", "coordinator-g", true);
    }

    private void scenario(String topicName, String groupName, boolean killCoordinator) throws Exception {
        topic = topicName;
        group = groupName;
        admin.createTopics(List.of(new NewTopic(topic, Optional.of(6), Optional.of((short) 3)))).all().get(60, TimeUnit.SECONDS);
        produce(0, 300);
        for (int i = 0; i < 3; i++) {
            consumers.add(new ConsumerProcess(cluster.bootstrap(), group, topic, "member-" + i, SESSION_MS,
                cluster.root().resolve(group + "-member-" + i + ".log")));
        }
        Map<TopicPartition, Long> highest = new ConcurrentHashMap<>();
        List<String> wentBack = new CopyOnWriteArrayList<>();
        // Samples the committed offsets every 200 ms (a periodic check, not a wait).
        TestNode killed = null;
        ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "offset-watcher");
            t.setDaemon(true);
            return t;
        });
        watcher.scheduleWithFixedDelay(() -> {
            try {
                Map<TopicPartition, OffsetAndMetadata> now = admin.listConsumerGroupOffsets(group).get(10, TimeUnit.SECONDS);
                now.forEach((tp, o) -> {
                    Long before = highest.get(tp);
                    if (before != null && o.offset() < before) {
                        wentBack.add(tp + ": " + before + " -> " + o.offset());
                    }
                    highest.merge(tp, o.offset(), Math::max);
                });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // the coordinator is moving: ask again at the next tick
            }
        }, 0, 200, TimeUnit.MILLISECONDS);
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
            awaitConsumed(600, Duration.ofSeconds(60));
            if (!killCoordinator) {
                TestCluster.await(() -> committedSum() == 600, Duration.ofSeconds(60), "committed offsets covering all 600 records");
                assertThat(wentBack).as("committed offsets that went backwards").isEmpty();
                return;
            }

            // kill -9 the coordinator's node: a new coordinator takes the group, with its offsets.
            ConsumerGroupDescription before = describe();
            assertThat(before).isNotNull();
            int coordinatorId = before.coordinator().id();
            Map<TopicPartition, Long> committedBefore = Map.copyOf(highest);
            TestNode coordinatorNode = cluster.node(coordinatorId);
            coordinatorNode.kill();
            killed = coordinatorNode;
            produce(600, 900);
            TestCluster.await(() -> {
                ConsumerGroupDescription now = describe();
                return now != null && now.coordinator().id() != coordinatorId && now.state().equals("Stable");
            }, Duration.ofSeconds(90), "a new coordinator with a stable group");
            awaitConsumed(900, Duration.ofSeconds(90));
            Map<TopicPartition, OffsetAndMetadata> after = admin.listConsumerGroupOffsets(group).get(30, TimeUnit.SECONDS);
            committedBefore.forEach((tp, o) ->
                assertThat(after.get(tp).offset()).as("committed offset of " + tp).isGreaterThanOrEqualTo(o));
            // Every record was processed, and in the end committed: the offsets add up to the 900 records.
            TestCluster.await(() -> committedSum() == 900, Duration.ofSeconds(60), "committed offsets covering all 900 records");
            assertThat(wentBack).as("committed offsets that went backwards").isEmpty();
        } finally {
            watcher.shutdownNow();
            consumers.forEach(ConsumerProcess::close);
            if (killed != null) {
                // The other scenario (either order) needs all three brokers: replication factor 3.
                TestNode restarted = killed;
                restarted.start();
                TestCluster.await(restarted::isReady, Duration.ofSeconds(120), "broker " + restarted.id() + " ready after its restart");
            }
        }
    }
}
