package io.raftline.tests.replication;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.Config;
import io.raftline.client.admin.ConfigEntry;
import io.raftline.client.admin.ConfigResource;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.admin.ReplicaLogInfo;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code reassign --throttle} on real node processes: a replica of a partition holding several MiB moves to a broker
 * that had none while producers keep writing with acks=all. The new replica's log grows no faster than the throttle
 * (a generous band; the measured numbers are printed), {@code --verify} exits 1 while it moves and 0 after, the
 * throttle configs are gone once {@code --wait} saw the move done, and every acknowledged record is read back at
 * its offset. Also the refusals of bad input, which change nothing.
 */
@Timeout(600)
class ReassignThrottleIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SETTLE = Duration.ofSeconds(120);
    private static final long THROTTLE = 512 * 1024;
    private static final int RECORD_BYTES = 1024;
    /** Written before the move: 6 MiB, about 12 s at the throttle. */
    private static final int RECORDS_BEFORE = 6 * 1024;
    private static TestCluster cluster;
    private static Admin admin;
    private static Cli cli;

    @TempDir
    static Path tmp;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).config("auto.leader.rebalance.enable", "false").start();
        cluster.awaitBrokersActive(SETTLE);
        admin = cluster.admin();
        cli = new Cli(cluster.bootstrap());
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static TopicPartitionInfo describe(String topic) {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void createTopic(String topic, int rf) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) rf))).all().get();
        TestCluster.await(() -> {
            TopicPartitionInfo p = describe(topic);
            return p.leader() != null && p.isr().size() == rf;
        }, SETTLE, topic + " to have a leader and a full ISR");
    }

    private static Path plan(String name, String topic, List<Integer> replicas) throws Exception {
        Path file = tmp.resolve(name + ".json");
        Files.writeString(file, "{\"version\":1,\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":0,\"replicas\":"
            + replicas + "}]}");
        return file;
    }

    private static String value(int i) {
        String head = "v-" + i + "-";
        return head + "x".repeat(RECORD_BYTES - head.length());
    }

    private static RaftlineProducer<String, String> producer() {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", cluster.bootstrap());
        props.setProperty("acks", "all");
        props.setProperty("delivery.timeout.ms", "120000");
        return new RaftlineProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** The sizes in bytes of the replica of {@code tp} on {@code broker}, as log-dirs describe reports it. */
    private static ReplicaLogInfo replicaOn(int broker, TopicPartition tp) {
        try {
            return admin.describeLogs(List.of(broker), Duration.ofSeconds(5)).values().get(broker).get().stream()
                .filter(r -> r.partition().equals(tp)).findFirst().orElse(null);
        } catch (Exception e) {
            return null;
        }
    }

    private static Map<String, ConfigEntry> configs(ConfigResource.Type type, String name) throws Exception {
        ConfigResource r = new ConfigResource(type, name);
        Config c = admin.describeConfigs(List.of(r)).all().get().get(r);
        Map<String, ConfigEntry> out = new ConcurrentHashMap<>();
        c.entries().forEach(e -> out.put(e.name(), e));
        return out;
    }

    private record Sample(long nanos, long sizeBytes) {
    }

    @Test
    void aThrottledMoveReplicatesWithinTheRateAndLosesNothing() throws Exception {
        String topic = "throttled";
        createTopic(topic, 2);
        TopicPartition tp = new TopicPartition(topic, 0);
        TopicPartitionInfo before = describe(topic);
        int leader = before.leader().id();
        List<Integer> replicas = before.replicas().stream().map(Node::id).toList();
        int dropped = replicas.stream().filter(id -> id != leader).findFirst().orElseThrow();
        int target = cluster.nodes().stream().map(TestNode::id).filter(id -> !replicas.contains(id)).findFirst()
            .orElseThrow();

        Map<Integer, Long> acked = new ConcurrentHashMap<>();
        AtomicInteger failed = new AtomicInteger();
        AtomicInteger sent = new AtomicInteger();
        List<Sample> samples = new CopyOnWriteArrayList<>();
        ScheduledExecutorService background = Executors.newScheduledThreadPool(2);
        try (RaftlineProducer<String, String> producer = producer()) {
            for (int i = 0; i < RECORDS_BEFORE; i++) {
                send(producer, topic, sent.getAndIncrement(), acked, failed);
            }
            producer.flush();
            assertThat(failed.get()).isZero();

            // during the move: 1 KiB every 20 ms (50 KiB/s, a tenth of the throttle), and a sample of the new replica
            background.scheduleAtFixedRate(() -> send(producer, topic, sent.getAndIncrement(), acked, failed), 0, 20,
                TimeUnit.MILLISECONDS);
            background.scheduleAtFixedRate(() -> {
                ReplicaLogInfo r = replicaOn(target, tp);
                samples.add(new Sample(System.nanoTime(), r == null ? 0 : r.sizeBytes()));
            }, 0, 250, TimeUnit.MILLISECONDS);

            Path move = plan("move", topic, List.of(leader, target));
            long startNs = System.nanoTime();
            Cli.Result executed = cli.run("reassign", "--plan", move.toString(), "--execute", "--throttle",
                Long.toString(THROTTLE), "--output", "json");
            assertThat(executed.exitCode()).as(executed.toString()).isZero();
            JsonNode exec = JSON.readTree(executed.out());
            assertThat(exec.get("ok").asBoolean()).isTrue();
            assertThat(exec.get("throttle").asLong()).isEqualTo(THROTTLE);
            JsonNode rollback = exec.get("rollback").get("partitions").get(0);
            assertThat(rollback.get("topic").asText()).isEqualTo(topic);
            List<Integer> rollbackReplicas = new ArrayList<>();
            rollback.get("replicas").forEach(n -> rollbackReplicas.add(n.asInt()));
            assertThat(rollbackReplicas).as("the rollback plan is the assignment before the move").isEqualTo(replicas);

            // the throttles as Kafka's tool sets them
            assertThat(configs(ConfigResource.Type.TOPIC, topic).get("leader.replication.throttled.replicas").value())
                .isEqualTo("0:" + Math.min(leader, dropped) + ",0:" + Math.max(leader, dropped));
            assertThat(configs(ConfigResource.Type.TOPIC, topic).get("follower.replication.throttled.replicas").value())
                .isEqualTo("0:" + target);
            for (int b : List.of(leader, dropped, target)) {
                Map<String, ConfigEntry> bc = configs(ConfigResource.Type.BROKER, Integer.toString(b));
                assertThat(bc.get("leader.replication.throttled.rate").value()).isEqualTo(Long.toString(THROTTLE));
                assertThat(bc.get("follower.replication.throttled.rate").value()).isEqualTo(Long.toString(THROTTLE));
            }

            Cli.Result during = cli.run("reassign", "--plan", move.toString(), "--verify", "--output", "json");
            assertThat(during.exitCode()).as("--verify while the replica catches up: " + during).isEqualTo(1);
            assertThat(during.err()).startsWith("error: ").contains("still moving");
            assertThat(JSON.readTree(during.out()).get("complete").asBoolean()).isFalse();

            Cli.Result waited = cli.run("reassign", "--plan", move.toString(), "--wait", "--progress-interval-ms", "2000",
                "--output", "json");
            long doneNs = System.nanoTime();
            assertThat(waited.exitCode()).as(waited.toString()).isZero();
            JsonNode finished = JSON.readTree(waited.out());
            assertThat(finished.get("complete").asBoolean()).isTrue();
            assertThat(finished.get("throttlesRemoved").asInt()).as(waited.toString()).isEqualTo(2 + 2 * 3);
            assertThat(waited.err().lines().filter(l -> l.startsWith("reassign: ")).count())
                .as("a progress line every 2 s of a move that takes several: " + waited.err()).isPositive();
            background.shutdown();
            assertThat(background.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            producer.flush();

            // the rate the new replica grew at, from its first bytes to the end of the move
            long finalSize = replicaOn(target, tp).sizeBytes();
            Sample first = samples.stream().filter(s -> s.sizeBytes() > 0).findFirst().orElseThrow();
            List<Sample> during2 = samples.stream().filter(s -> s.nanos() <= doneNs).toList();
            Sample last = during2.get(during2.size() - 1);
            double seconds = (last.nanos() - first.nanos()) / 1e9;
            double rate = (last.sizeBytes() - first.sizeBytes()) / seconds;
            double overall = finalSize / ((doneNs - startNs) / 1e9);
            System.out.printf("ReassignThrottleIT: throttle %d B/s; the new replica on broker %d grew %d -> %d bytes in "
                    + "%.1f s: %.0f B/s (%.2f x the throttle); %d bytes over the whole move of %.1f s: %.0f B/s%n",
                THROTTLE, target, first.sizeBytes(), last.sizeBytes(), seconds, rate, rate / THROTTLE, finalSize,
                (doneNs - startNs) / 1e9, overall);
            assertThat(seconds).as("the move lasted long enough to measure").isGreaterThan(4);
            assertThat(rate).as("measured rate within a generous band of the throttle")
                .isBetween(THROTTLE * 0.25, THROTTLE * 2.0);
        } finally {
            background.shutdownNow();
        }

        // throttles gone
        Map<String, ConfigEntry> tc = configs(ConfigResource.Type.TOPIC, topic);
        assertThat(tc.get("leader.replication.throttled.replicas").value()).isEmpty();
        assertThat(tc.get("follower.replication.throttled.replicas").value()).isEmpty();
        for (int b : List.of(leader, dropped, target)) {
            Map<String, ConfigEntry> bc = configs(ConfigResource.Type.BROKER, Integer.toString(b));
            assertThat(bc).doesNotContainKeys("leader.replication.throttled.rate", "follower.replication.throttled.rate");
        }
        Cli.Result after = cli.run("reassign", "--plan", plan("move", topic, List.of(leader, target)).toString(),
            "--verify");
        assertThat(after.exitCode()).as(after.toString()).isZero();
        assertThat(describe(topic).replicas().stream().map(Node::id).toList()).containsExactly(leader, target);

        // every acknowledged record at its offset, and the new replica holds the same log as the leader
        assertThat(failed.get()).isZero();
        assertThat(acked).hasSize(sent.get());
        long lastOffset = acked.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        TestCluster.await(() -> {
            ReplicaLogInfo r = replicaOn(target, tp);
            return r != null && r.logEndOffset() == lastOffset + 1;
        }, SETTLE, "the new replica to hold every record");
        Map<Long, String> stored = readAll(tp, lastOffset);
        for (Map.Entry<Integer, Long> ack : acked.entrySet()) {
            assertThat(stored.get(ack.getValue())).as("acknowledged record %d at offset %d", ack.getKey(), ack.getValue())
                .isEqualTo(value(ack.getKey()));
        }
        System.out.printf("ReassignThrottleIT: %d records acknowledged, all read back at their offsets%n", acked.size());
    }

    /** For comparison with the throttled move (printed, not asserted: speed is measured, never asserted). */
    @Test
    void theSameMoveUnthrottled() throws Exception {
        String topic = "unthrottled";
        createTopic(topic, 2);
        TopicPartitionInfo before = describe(topic);
        int leader = before.leader().id();
        List<Integer> replicas = before.replicas().stream().map(Node::id).toList();
        int target = cluster.nodes().stream().map(TestNode::id).filter(id -> !replicas.contains(id)).findFirst()
            .orElseThrow();
        Map<Integer, Long> acked = new ConcurrentHashMap<>();
        AtomicInteger failed = new AtomicInteger();
        try (RaftlineProducer<String, String> producer = producer()) {
            for (int i = 0; i < RECORDS_BEFORE; i++) {
                send(producer, topic, i, acked, failed);
            }
            producer.flush();
        }
        assertThat(failed.get()).isZero();
        Path move = plan("unthrottled", topic, List.of(leader, target));
        long startNs = System.nanoTime();
        Cli.Result executed = cli.run("reassign", "--plan", move.toString(), "--execute", "--wait", "--output", "json");
        double seconds = (System.nanoTime() - startNs) / 1e9;
        assertThat(executed.exitCode()).as(executed.toString()).isZero();
        assertThat(executed.outLines()).as("--execute --wait: one JSON document").hasSize(1);
        JsonNode doc = JSON.readTree(executed.out());
        assertThat(doc.get("complete").asBoolean()).isTrue();
        assertThat(doc.get("throttle").isNull()).isTrue();
        assertThat(doc.get("rollback").get("partitions").get(0).get("replicas").size()).isEqualTo(2);
        long size = replicaOn(target, new TopicPartition(topic, 0)).sizeBytes();
        System.out.printf("ReassignThrottleIT: unthrottled, %d bytes moved to broker %d in %.1f s: %.0f B/s%n", size, target,
            seconds, size / seconds);
    }

    private static void send(RaftlineProducer<String, String> producer, String topic, int i, Map<Integer, Long> acked,
                             AtomicInteger failed) {
        producer.send(new ProducerRecord<>(topic, 0, null, value(i)), (md, e) -> {
            if (e == null) {
                acked.put(i, md.offset());
            } else {
                failed.incrementAndGet();
            }
        });
    }

    private static Map<Long, String> readAll(TopicPartition tp, long lastOffset) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", cluster.bootstrap());
        Map<Long, String> stored = new ConcurrentHashMap<>();
        try (RaftlineConsumer<String, String> consumer = new RaftlineConsumer<>(props, new StringDeserializer(),
            new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long previous = -1;
            long deadline = System.nanoTime() + SETTLE.toNanos();
            while (consumer.position(tp) <= lastOffset && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    assertThat(r.offset()).isGreaterThan(previous);
                    previous = r.offset();
                    stored.put(r.offset(), r.value());
                }
            }
        }
        return stored;
    }

    /** Bad input: one error line, the exit code of CLI.md, and no reassignment or throttle left behind. */
    @Test
    void badInputIsRefusedAndChangesNothing() throws Exception {
        String topic = "untouched";
        createTopic(topic, 1);
        int on = describe(topic).replicas().get(0).id();
        int other = cluster.nodes().stream().map(TestNode::id).filter(id -> id != on).findFirst().orElseThrow();
        Path good = plan("good", topic, List.of(other));
        Object[][] table = {
            {new String[] {"--plan", good.toString(), "--execute", "--throttle", "0"}, 1, "--throttle must be at least 1"},
            {new String[] {"--plan", good.toString(), "--execute", "--throttle", "-5"}, 1, "--throttle must be at least 1"},
            {new String[] {"--plan", good.toString(), "--execute", "--throttle", "fast"}, 2, null},
            {new String[] {"--plan", good.toString(), "--verify", "--throttle", "100"}, 2, null},
            {new String[] {"--plan", good.toString(), "--cancel", "--wait"}, 2, null},
            {new String[] {"--plan", good.toString()}, 2, null},
            {new String[] {"--plan", plan("no-topic", "no-such-topic", List.of(other)).toString(), "--execute",
                "--throttle", "1000"}, 1, "no-such-topic"},
            {new String[] {"--plan", plan("no-broker", topic, List.of(on, 99)).toString(), "--execute", "--throttle",
                "1000"}, 1, "broker 99, which is not registered"},
            {new String[] {"--generate", "--topics", topic, "--brokers", on + ",99"}, 1, "broker 99, which is not registered"},
            {new String[] {"--generate", "--topics", topic, "--brokers", on + "," + on}, 1, "names a broker twice"},
        };
        for (Object[] row : table) {
            List<String> args = new ArrayList<>(List.of("reassign"));
            args.addAll(List.of((String[]) row[0]));
            Cli.Result r = cli.run(args.toArray(new String[0]));
            assertThat(r.exitCode()).as(r.toString()).isEqualTo(row[1]);
            if (row[2] != null) {
                assertThat(r.err()).as(r.toString()).startsWith("error: ").contains((String) row[2]);
                assertThat(r.err().lines().count()).as(r.toString()).isEqualTo(1);
                assertThat(r.out()).as("nothing printed, so no rollback plan for a move that did not start").isEmpty();
            }
        }
        assertThat(admin.listPartitionReassignments().reassignments().get()).isEmpty();
        assertThat(describe(topic).replicas().stream().map(Node::id).toList()).containsExactly(on);
        Map<String, ConfigEntry> tc = configs(ConfigResource.Type.TOPIC, topic);
        assertThat(tc.get("leader.replication.throttled.replicas").value()).isEmpty();
        for (TestNode n : cluster.nodes()) {
            assertThat(configs(ConfigResource.Type.BROKER, Integer.toString(n.id())))
                .doesNotContainKeys("leader.replication.throttled.rate", "follower.replication.throttled.rate");
        }
    }
}
