package io.raftline.tests.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.ConsumerGroupDescription;
import io.raftline.client.admin.MemberDescription;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.consumer.ConsumerRebalanceListener;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.errors.WakeupException;
import io.raftline.client.examples.DeliverySemantics;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Consumer groups on a real 3-node cluster with consumers in this JVM: broadcast between groups and unicast inside
 * one, idle extra members, committed positions across restarts of a group, rebalance listeners, and the
 * {@code raftline groups} commands with {@code consume --group}.
 */
@Timeout(300)
class GroupsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static TestCluster cluster;
    private static Admin admin;
    private static Cli cli;
    private static RaftlineProducer<String, String> producer;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).groupTesting(6)
            .start();
        admin = cluster.admin();
        cli = new Cli(cluster.bootstrap());
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

    private static void createTopic(String name, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, Optional.of(partitions), Optional.of((short) 3)))).all().get(60, TimeUnit.SECONDS);
    }

    private static void produce(String topic, int from, int to) {
        for (int i = from; i < to; i++) {
            producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i));
        }
        producer.flush();
    }

    private static Set<String> expected(int from, int to) {
        Set<String> out = new HashSet<>();
        for (int i = from; i < to; i++) {
            out.add("v" + i);
        }
        return out;
    }

    /** A group member polling on its own thread; at-least-once (commitSync after each non-empty poll). */
    private static final class Member implements AutoCloseable {
        final List<String> values = new CopyOnWriteArrayList<>();
        final List<String> events = new CopyOnWriteArrayList<>();
        final Thread thread;
        volatile boolean running = true;
        volatile Set<TopicPartition> assignment = Set.of();
        volatile Throwable failure;

        Member(String group, String topic, String clientId, String... extra) {
            Properties p = new Properties();
            p.setProperty("bootstrap.servers", cluster.bootstrap());
            p.setProperty("group.id", group);
            p.setProperty("client.id", clientId);
            p.setProperty("session.timeout.ms", "3000");
            p.setProperty("heartbeat.interval.ms", "500");
            p.setProperty("auto.offset.reset", "earliest");
            p.setProperty("enable.auto.commit", "false");
            for (int i = 0; i + 1 < extra.length; i += 2) {
                p.setProperty(extra[i], extra[i + 1]);
            }
            boolean autoCommit = Boolean.parseBoolean(p.getProperty("enable.auto.commit"));
            thread = new Thread(() -> {
                try (RaftlineConsumer<String, String> c = new RaftlineConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
                    c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                        @Override
                        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                            events.add("revoked " + partitions);
                        }

                        @Override
                        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                            events.add("assigned " + partitions);
                        }
                    });
                    while (running) {
                        var records = c.poll(Duration.ofMillis(100));
                        assignment = Set.copyOf(c.assignment());
                        for (ConsumerRecord<String, String> r : records) {
                            values.add(r.value());
                        }
                        if (!records.isEmpty() && !autoCommit) {
                            try {
                                c.commitSync();
                            } catch (RuntimeException e) {
                                events.add("commit failed " + e);
                            }
                        }
                    }
                } catch (Throwable t) {
                    failure = t;
                }
            }, "member-" + clientId);
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(30_000);
            assertThat(failure).as("member failure").isNull();
        }
    }

    @Test
    void twoGroupsEachGetEveryRecordWhileMembersOfOneGroupShare() throws Exception {
        createTopic("bcast", 4);
        produce("bcast", 0, 100);
        try (Member a1 = new Member("bcast-a", "bcast", "a1"); Member a2 = new Member("bcast-a", "bcast", "a2");
             Member b1 = new Member("bcast-b", "bcast", "b1")) {
            TestCluster.await(() -> a1.assignment.size() == 2 && a2.assignment.size() == 2, Duration.ofSeconds(60),
                "group a's two members to share the four partitions");
            Set<TopicPartition> a1Owns = a1.assignment;
            // Records produced once the group is stable: each goes to exactly one member of group a (unicast), and
            // to group b as well (broadcast).
            produce("bcast", 100, 300);
            TestCluster.await(() -> {
                Set<String> a = new HashSet<>(a1.values);
                a.addAll(a2.values);
                return a.containsAll(expected(0, 300)) && new HashSet<>(b1.values).containsAll(expected(0, 300));
            }, Duration.ofSeconds(60), "every record in each group");
            assertThat(a1.assignment).isEqualTo(a1Owns).doesNotContainAnyElementsOf(a2.assignment);
            assertThat(b1.assignment).hasSize(4);
            Set<String> late = expected(100, 300);
            List<String> fromA1 = a1.values.stream().filter(late::contains).toList();
            List<String> fromA2 = a2.values.stream().filter(late::contains).toList();
            assertThat(fromA1).isNotEmpty().doesNotContainAnyElementsOf(fromA2);
            assertThat(fromA2).isNotEmpty();
            assertThat(fromA1.size() + fromA2.size()).isEqualTo(200);
            assertThat(a1.events).anyMatch(e -> e.startsWith("assigned"));
        }
    }

    @Test
    void moreConsumersThanPartitionsLeavesTheExtraOnesIdle() throws Exception {
        createTopic("idle", 2);
        List<Member> members = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                members.add(new Member("idle-g", "idle", "m" + i, "partition.assignment.strategy", "roundrobin"));
            }
            TestCluster.await(() -> {
                try {
                    ConsumerGroupDescription d = admin.describeConsumerGroups(List.of("idle-g")).get("idle-g").get(10, TimeUnit.SECONDS);
                    return d.state().equals("Stable") && d.members().size() == 4
                        && d.members().stream().filter(m -> m.assignment().isEmpty()).count() == 2
                        && d.members().stream().mapToInt(m -> m.assignment().size()).sum() == 2;
                } catch (Exception e) {
                    return false;
                }
            }, Duration.ofSeconds(60), "four members, two of them idle");
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of("idle-g")).get("idle-g").get(10, TimeUnit.SECONDS);
            assertThat(d.protocol()).isEqualTo("roundrobin");
            assertThat(d.members()).extracting(MemberDescription::clientId).containsExactlyInAnyOrder("m0", "m1", "m2", "m3");
            assertThat(d.members()).allSatisfy(m -> assertThat(m.host()).isNotBlank());
            TestCluster.await(() -> members.stream().filter(m -> m.assignment.isEmpty()).count() == 2, Duration.ofSeconds(30),
                "two consumers with nothing assigned");
        } finally {
            for (Member m : members) {
                m.close();
            }
        }
    }

    @Test
    void aRestartedGroupGoesOnFromItsCommittedOffsets() throws Exception {
        createTopic("resume", 3);
        produce("resume", 0, 60);
        try (Member m = new Member("resume-g", "resume", "r1")) {
            TestCluster.await(() -> new HashSet<>(m.values).containsAll(expected(0, 60)), Duration.ofSeconds(60), "the first 60");
        }
        produce("resume", 60, 90);
        // Auto-commit this time: the second member never calls commitSync; its positions are committed every
        // auto.commit.interval.ms at a poll and when it leaves.
        try (Member m = new Member("resume-g", "resume", "r2", "enable.auto.commit", "true", "auto.commit.interval.ms", "500")) {
            TestCluster.await(() -> new HashSet<>(m.values).containsAll(expected(60, 90)), Duration.ofSeconds(60), "the next 30");
            assertThat(m.values).doesNotContainAnyElementsOf(expected(0, 60));
        }
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("resume-g").get(30, TimeUnit.SECONDS);
        assertThat(committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum()).isEqualTo(90);
    }

    /**
     * Two members of one group polled in turn on ONE thread, as an application that polls with a short timeout to do
     * other work does. The second member's JoinGroup is held by the coordinator until the first rejoins, which it can
     * only do in its own poll: the second member's {@code poll(200 ms)} must return with the join still pending (and
     * pick it up at its next poll), not wait for the rebalance timeout (max.poll.interval.ms, 60 s here; the test's
     * timeout is well below it). Then the group converges: both members assigned, every partition held once.
     */
    @Test
    @Timeout(45)
    void twoMembersPolledInTurnOnOneThreadCompleteTheirRebalance() throws Exception {
        String topic = "one-thread";
        String group = "one-thread-g";
        createTopic(topic, 4);
        produce(topic, 0, 40);
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", cluster.bootstrap());
        p.setProperty("group.id", group);
        p.setProperty("session.timeout.ms", "10000");
        p.setProperty("heartbeat.interval.ms", "500");
        p.setProperty("max.poll.interval.ms", "60000");
        p.setProperty("auto.offset.reset", "earliest");
        p.setProperty("enable.auto.commit", "false");
        Set<String> seen = new HashSet<>();
        try (RaftlineConsumer<String, String> first = new RaftlineConsumer<>(p, new StringDeserializer(), new StringDeserializer());
             RaftlineConsumer<String, String> second = new RaftlineConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            first.subscribe(List.of(topic));
            TestCluster.await(() -> {
                first.poll(Duration.ofMillis(200)).forEach(r -> seen.add(r.value()));
                return first.assignment().size() == 4;
            }, Duration.ofSeconds(30), "the first member to own all four partitions");
            second.subscribe(List.of(topic));
            TestCluster.await(() -> {
                second.poll(Duration.ofMillis(200)).forEach(r -> seen.add(r.value()));
                first.poll(Duration.ofMillis(200)).forEach(r -> seen.add(r.value()));
                return first.assignment().size() == 2 && second.assignment().size() == 2;
            }, Duration.ofSeconds(30), "both members to own two partitions each");
            Set<TopicPartition> held = new HashSet<>(first.assignment());
            assertThat(second.assignment()).doesNotContainAnyElementsOf(held);
            held.addAll(second.assignment());
            assertThat(held).hasSize(4);
            // Every record read at least once (eager, no commits: a partition that moves starts over from
            // auto.offset.reset, so some records come twice; none is missing).
            TestCluster.await(() -> {
                second.poll(Duration.ofMillis(100)).forEach(r -> seen.add(r.value()));
                first.poll(Duration.ofMillis(100)).forEach(r -> seen.add(r.value()));
                return seen.containsAll(expected(0, 40));
            }, Duration.ofSeconds(20), "every record read");
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).get(group).get(30, TimeUnit.SECONDS);
            assertThat(d.state()).isEqualTo("Stable");
            assertThat(d.members()).hasSize(2);
        }
    }

    /**
     * The consumer's wakeup() ends a poll that waits for the group coordinator: here the second member's JoinGroup,
     * which the coordinator holds until the first member rejoins (it is not polled meanwhile). The poll throws
     * WakeupException well before its own 30 s timeout, and the group still completes the rebalance afterwards.
     */
    @Test
    @Timeout(45)
    void aWakeupEndsAPollWaitingForTheGroupCoordinator() throws Exception {
        String topic = "wakeup";
        String group = "wakeup-g";
        createTopic(topic, 2);
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", cluster.bootstrap());
        p.setProperty("group.id", group);
        p.setProperty("session.timeout.ms", "10000");
        p.setProperty("heartbeat.interval.ms", "500");
        p.setProperty("max.poll.interval.ms", "60000");
        p.setProperty("enable.auto.commit", "false");
        try (RaftlineConsumer<String, String> first = new RaftlineConsumer<>(p, new StringDeserializer(), new StringDeserializer());
             RaftlineConsumer<String, String> second = new RaftlineConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            first.subscribe(List.of(topic));
            TestCluster.await(() -> {
                first.poll(Duration.ofMillis(200));
                return first.assignment().size() == 2;
            }, Duration.ofSeconds(30), "the first member to own both partitions");
            second.subscribe(List.of(topic));
            CompletableFuture<Void> polling = new CompletableFuture<>();
            Thread poller = new Thread(() -> {
                try {
                    second.poll(Duration.ofSeconds(30));
                    polling.complete(null);
                } catch (Throwable t) {
                    polling.completeExceptionally(t);
                }
            }, "wakeup-poller");
            poller.start();
            TestCluster.await(() -> Arrays.stream(poller.getStackTrace()).anyMatch(e -> e.getMethodName().equals("awaitAnswer")),
                Duration.ofSeconds(20), "the second member's poll to wait for the coordinator's answer");
            second.wakeup();
            assertThatThrownBy(() -> polling.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(WakeupException.class);
            poller.join(5000);
            TestCluster.await(() -> {
                second.poll(Duration.ofMillis(200));
                first.poll(Duration.ofMillis(200));
                return first.assignment().size() == 1 && second.assignment().size() == 1;
            }, Duration.ofSeconds(30), "both members to own one partition each");
        }
    }

    private static JsonNode json(Cli.Result r) throws Exception {
        assertThat(r.exitCode()).as(r.toString()).isZero();
        return JSON.readTree(r.out());
    }

    @Test
    void groupsCommandsAndConsoleConsumerWithAGroup() throws Exception {
        createTopic("cli-g-topic", 3);
        produce("cli-g-topic", 0, 30);
        Cli.Result first = cli.run("consume", "--topic", "cli-g-topic", "--group", "cli-g", "--from-beginning",
            "--max-messages", "10", "--consumer-property", "session.timeout.ms=3000",
            "--consumer-property", "heartbeat.interval.ms=500");
        assertThat(first.exitCode()).as(first.toString()).isZero();
        assertThat(first.outLines()).hasSize(10);

        JsonNode d = json(cli.run("groups", "describe", "--group", "cli-g", "--output", "json"));
        assertThat(d.get("group").asText()).isEqualTo("cli-g");
        assertThat(d.get("state").asText()).isEqualTo("Empty");
        assertThat(d.get("members")).isEmpty();
        assertThat(d.get("coordinator").asInt()).isPositive();
        long committedSum = 0;
        for (JsonNode o : d.get("offsets")) {
            assertThat(o.get("logEndOffset").isNumber()).as(o.toString()).isTrue();
            if (!o.get("committed").isNull()) {
                committedSum += o.get("committed").asLong();
                assertThat(o.get("lag").asLong()).isEqualTo(o.get("logEndOffset").asLong() - o.get("committed").asLong());
            }
        }
        assertThat(committedSum).isEqualTo(10);

        // The next run goes on where the first stopped: the other 20 records, none twice.
        Cli.Result second = cli.run("consume", "--topic", "cli-g-topic", "--group", "cli-g", "--from-beginning",
            "--max-messages", "20", "--timeout-ms", "20000", "--consumer-property", "session.timeout.ms=3000",
            "--consumer-property", "heartbeat.interval.ms=500");
        assertThat(second.exitCode()).as(second.toString()).isZero();
        Set<String> seen = new HashSet<>(first.outLines());
        assertThat(second.outLines()).hasSize(20).doesNotContainAnyElementsOf(seen);
        seen.addAll(second.outLines());
        assertThat(seen).isEqualTo(expected(0, 30));

        JsonNode list = json(cli.run("groups", "list", "--output", "json"));
        List<String> names = new ArrayList<>();
        list.get("groups").forEach(g -> {
            names.add(g.get("group").asText());
            assertThat(g.get("coordinator").asInt()).isPositive();
        });
        assertThat(names).contains("cli-g");

        // reset-offsets: a dry run changes nothing; --execute does.
        JsonNode dry = json(cli.run("groups", "reset-offsets", "--group", "cli-g", "--topic", "cli-g-topic", "--to-earliest",
            "--dry-run", "--output", "json"));
        assertThat(dry.get("offsets")).hasSize(3).allSatisfy(o -> assertThat(o.get("newOffset").asLong()).isZero());
        assertThat(committedTotal("cli-g")).isEqualTo(30);
        json(cli.run("groups", "reset-offsets", "--group", "cli-g", "--topic", "cli-g-topic", "--to-earliest", "--execute",
            "--output", "json"));
        assertThat(committedTotal("cli-g")).isZero();
        json(cli.run("groups", "reset-offsets", "--group", "cli-g", "--topic", "cli-g-topic", "--to-latest", "--execute",
            "--output", "json"));
        assertThat(committedTotal("cli-g")).isEqualTo(30);
        json(cli.run("groups", "reset-offsets", "--group", "cli-g", "--topic", "cli-g-topic", "--to-offset", "2", "--execute",
            "--output", "json"));
        assertThat(committedTotal("cli-g")).isEqualTo(6);
        json(cli.run("groups", "reset-offsets", "--group", "cli-g", "--topic", "cli-g-topic", "--to-datetime",
            "2000-01-01T00:00:00Z", "--execute", "--output", "json"));
        assertThat(committedTotal("cli-g")).isZero();
        assertThat(cli.run("groups", "reset-offsets", "--group", "cli-g", "--topic", "cli-g-topic", "--to-earliest").exitCode())
            .isEqualTo(2);
        assertThat(cli.run("groups", "reset-offsets", "--group", "cli-g", "--topic", "cli-g-topic", "--to-earliest",
            "--to-latest", "--execute").exitCode()).isEqualTo(2);

        Cli.Result table = cli.run("groups", "describe", "--group", "cli-g");
        assertThat(table.exitCode()).as(table.toString()).isZero();
        assertThat(table.out()).contains("cli-g-topic").contains("LAG");

        JsonNode deleted = json(cli.run("groups", "delete", "--group", "cli-g", "--output", "json"));
        assertThat(deleted.get("ok").asBoolean()).isTrue();
        Cli.Result gone = cli.run("groups", "describe", "--group", "cli-g", "--output", "json");
        assertThat(gone.exitCode()).as(gone.toString()).isEqualTo(1);
        assertThat(gone.err()).startsWith("error: ");
        assertThat(cli.run("groups", "delete", "--group", "never-there").exitCode()).isEqualTo(1);
        assertThat(cli.run("consume", "--topic", "cli-g-topic", "--group", "x", "--partition", "0").exitCode()).isEqualTo(2);
    }

    /** A consumer for the recipes: manual commits, small polls so that a crash falls mid-stream. */
    private static RaftlineConsumer<String, String> recipeConsumer(String group) {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", cluster.bootstrap());
        p.setProperty("group.id", group);
        p.setProperty("session.timeout.ms", "3000");
        p.setProperty("heartbeat.interval.ms", "500");
        p.setProperty("auto.offset.reset", "earliest");
        p.setProperty("enable.auto.commit", "false");
        p.setProperty("max.poll.records", "7");
        return new RaftlineConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    /** Thrown by a processor to stand for a crash: the consumer is closed without committing anything more. */
    private static final class Crash extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    /** Runs {@code round} until {@code done} or a crash; returns whether it crashed. */
    private static boolean runUntil(java.util.function.BooleanSupplier done, java.util.function.Supplier<Integer> round) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try {
            while (!done.getAsBoolean()) {
                assertThat(System.nanoTime() - deadline).as("recipe finished in time").isNegative();
                round.get();
            }
            return false;
        } catch (Crash c) {
            return true;
        }
    }

    @Test
    void deliverySemanticsRecipesAcrossACrash() throws Exception {
        createTopic("recipes", 2);
        produce("recipes", 0, 50);
        Duration poll = Duration.ofMillis(200);

        // At least once: a crash after processing but before the commit repeats records, never loses one.
        List<String> atLeast = new CopyOnWriteArrayList<>();
        try (RaftlineConsumer<String, String> c = recipeConsumer("recipe-alo")) {
            c.subscribe(List.of("recipes"));
            boolean crashed = runUntil(() -> false, () -> DeliverySemantics.atLeastOnce(c, poll, r -> {
                atLeast.add(r.value());
                if (atLeast.size() == 20) {
                    throw new Crash();
                }
            }));
            assertThat(crashed).isTrue();
        }
        try (RaftlineConsumer<String, String> c = recipeConsumer("recipe-alo")) {
            c.subscribe(List.of("recipes"));
            runUntil(() -> new HashSet<>(atLeast).containsAll(expected(0, 50)),
                () -> DeliverySemantics.atLeastOnce(c, poll, r -> atLeast.add(r.value())));
        }
        assertThat(new HashSet<>(atLeast)).isEqualTo(expected(0, 50));
        assertThat(atLeast.size()).as("the crashed poll's records came again").isGreaterThan(50);

        // At most once: the crashed poll's records are lost, none is processed twice.
        List<String> atMost = new CopyOnWriteArrayList<>();
        try (RaftlineConsumer<String, String> c = recipeConsumer("recipe-amo")) {
            c.subscribe(List.of("recipes"));
            boolean crashed = runUntil(() -> false, () -> DeliverySemantics.atMostOnce(c, poll, r -> {
                if (atMost.size() == 20) {
                    throw new Crash();
                }
                atMost.add(r.value());
            }));
            assertThat(crashed).isTrue();
        }
        try (RaftlineConsumer<String, String> c = recipeConsumer("recipe-amo")) {
            c.subscribe(List.of("recipes"));
            runUntil(() -> committedTotalQuietly("recipe-amo") == 50,
                () -> DeliverySemantics.atMostOnce(c, poll, r -> atMost.add(r.value())));
        }
        assertThat(atMost).doesNotHaveDuplicates();
        assertThat(atMost.size()).as("the crashed poll's remaining records are lost").isLessThan(50);

        // Effectively once: output and offsets stored together; replays are skipped; every record exactly once.
        Map<TopicPartition, Long> highest = new java.util.concurrent.ConcurrentHashMap<>();
        List<String> output = new CopyOnWriteArrayList<>();
        DeliverySemantics.OutputStore<String, String> store = new DeliverySemantics.OutputStore<>() {
            @Override
            public long highestProcessed(TopicPartition partition) {
                return highest.getOrDefault(partition, -1L);
            }

            @Override
            public synchronized void storeWithOffset(ConsumerRecord<String, String> record) {
                output.add(record.value());
                highest.put(new TopicPartition(record.topic(), record.partition()), record.offset());
                if (output.size() == 20) {
                    throw new Crash(); // after the store, before the group commit: the replay must be skipped
                }
            }
        };
        for (int run = 0; run < 2; run++) {
            try (RaftlineConsumer<String, String> c = recipeConsumer("recipe-eo")) {
                c.subscribe(List.of("recipes"), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        DeliverySemantics.seekToStored(c, partitions, store);
                    }
                });
                runUntil(() -> output.size() >= 50, () -> DeliverySemantics.effectivelyOnce(c, poll, store));
            }
        }
        assertThat(output).doesNotHaveDuplicates();
        assertThat(new HashSet<>(output)).isEqualTo(expected(0, 50));
    }

    private static long committedTotalQuietly(String group) {
        try {
            return committedTotal(group);
        } catch (Exception e) {
            return -1;
        }
    }

    private static long committedTotal(String group) throws Exception {
        return admin.listConsumerGroupOffsets(group).get(30, TimeUnit.SECONDS).values().stream()
            .mapToLong(OffsetAndMetadata::offset).sum();
    }

    /**
     * The coordinator's group gauges after real traffic: {@code raftline_groups}, {@code raftline_group_members{group}}
     * and {@code raftline_group_lag{group,topic,partition}} (high watermark minus committed offset), on the broker
     * that coordinates the group and nowhere else; the members gauge falls to 0 when the member leaves.
     */
    @Test
    void theCoordinatorExposesGroupCountMembersAndLag() throws Exception {
        String topic = "metrics-orders";
        String group = "metrics-g";
        createTopic(topic, 2);
        for (int i = 0; i < 10; i++) {
            producer.send(new ProducerRecord<>(topic, 0, "k" + i, "a" + i));
        }
        for (int i = 0; i < 4; i++) {
            producer.send(new ProducerRecord<>(topic, 1, "k" + i, "b" + i));
        }
        producer.flush();
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", cluster.bootstrap());
        p.setProperty("group.id", group);
        p.setProperty("session.timeout.ms", "3000");
        p.setProperty("heartbeat.interval.ms", "500");
        p.setProperty("enable.auto.commit", "false");
        TestNode coordinator;
        try (RaftlineConsumer<String, String> c = new RaftlineConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            c.subscribe(List.of(topic));
            TestCluster.await(() -> {
                c.poll(Duration.ofMillis(100));
                return c.assignment().size() == 2;
            }, Duration.ofSeconds(60), "the member to own both partitions");
            // Committed 3 of 10 on partition 0 and all 4 of partition 1: lag 7 and 0.
            c.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(3), new TopicPartition(topic, 1),
                new OffsetAndMetadata(4)));
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).get(group).get(30, TimeUnit.SECONDS);
            coordinator = cluster.node(d.coordinator().id());
            TestCluster.await(() -> {
                c.poll(Duration.ofMillis(10)); // keeps the member in the group while the gauges refresh
                String m = coordinator.scrapeMetrics();
                return gauge(m, "raftline_group_members", "group=\"" + group + "\"") == 1
                    && gauge(m, "raftline_group_lag", "group=\"" + group + "\"", "topic=\"" + topic + "\"", "partition=\"0\"") == 7
                    && gauge(m, "raftline_group_lag", "group=\"" + group + "\"", "topic=\"" + topic + "\"", "partition=\"1\"") == 0
                    && gauge(m, "raftline_groups") >= 1;
            }, Duration.ofSeconds(60), "members 1 and lag 7/0 for " + group + " on its coordinator");
            for (TestNode other : cluster.nodes()) {
                if (other != coordinator) {
                    assertThat(gauge(other.scrapeMetrics(), "raftline_group_members", "group=\"" + group + "\""))
                        .as("members of " + group + " on broker " + other.id() + ", which does not coordinate it").isNaN();
                }
            }
        }
        // The member left on close: the group is Empty, its lag still shows.
        TestCluster.await(() -> {
            String m = coordinator.scrapeMetrics();
            return gauge(m, "raftline_group_members", "group=\"" + group + "\"") == 0
                && gauge(m, "raftline_group_lag", "group=\"" + group + "\"", "topic=\"" + topic + "\"", "partition=\"0\"") == 7;
        }, Duration.ofSeconds(60), "members 0 after the member left");
    }

    /** The value of the first sample of {@code name} whose labels contain every one of {@code labels}; NaN if none. */
    private static double gauge(String scrape, String name, String... labels) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith("#") || !(line.startsWith(name + "{") || line.startsWith(name + " "))) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String series = line.substring(0, space);
            boolean all = true;
            for (String l : labels) {
                all &= series.contains(l);
            }
            if (all) {
                return Double.parseDouble(line.substring(space + 1));
            }
        }
        return Double.NaN;
    }
}
