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
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short, default-run version of {@link GroupFailoverIT}'s coordinator scenario: two consumer processes on three
 * partitions, SIGKILL the node that coordinates their group (it also leads some of the partitions they read), and
 * every record produced before and after the kill is read and committed, with no committed offset going back.
 */
@Timeout(180)
class GroupCoordinatorFailoverIT {

    private static final String TOPIC = "quick-failover";
    private static final String GROUP = "quick-failover-g";

    private static TestCluster cluster;
    private static Admin admin;
    private static RaftlineProducer<String, String> producer;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).groupTesting(3)
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

    private static void produce(int from, int to) throws Exception {
        List<Future<?>> sent = new ArrayList<>();
        for (int i = from; i < to; i++) {
            sent.add(producer.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i)));
        }
        producer.flush();
        for (Future<?> f : sent) {
            f.get(60, TimeUnit.SECONDS);
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> committed() {
        try {
            return admin.listConsumerGroupOffsets(GROUP).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return Map.of();
        }
    }

    private static long committedSum() {
        return committed().values().stream().mapToLong(OffsetAndMetadata::offset).sum();
    }

    private static boolean allRead(List<ConsumerProcess> consumers, int n) {
        Set<String> seen = new HashSet<>();
        consumers.forEach(c -> seen.addAll(c.values));
        for (int i = 0; i < n; i++) {
            if (!seen.contains("v" + i)) {
                return false;
            }
        }
        return true;
    }

    private static String state(List<ConsumerProcess> consumers) {
        return "assignments " + consumers.stream().map(ConsumerProcess::assignment).toList() + ", positions "
            + consumers.stream().map(ConsumerProcess::status).toList() + ", committed " + committed();
    }

    /** {@link TestCluster#await}, failing with the consumers' state at the time of the failure. */
    private static void await(List<ConsumerProcess> consumers, java.util.function.BooleanSupplier condition, String what) {
        try {
            TestCluster.await(condition, Duration.ofSeconds(60), what);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + ": " + state(consumers), e);
        }
    }

    @Test
    void theGroupGoesOnWithItsOffsetsAfterItsCoordinatorIsKilled() throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, Optional.of(3), Optional.of((short) 3)))).all().get(60, TimeUnit.SECONDS);
        produce(0, 90);
        List<ConsumerProcess> consumers = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                consumers.add(new ConsumerProcess(cluster.bootstrap(), GROUP, TOPIC, "quick-" + i, 3000,
                    cluster.root().resolve(GROUP + "-" + i + ".log")));
            }
            await(consumers, () -> allRead(consumers, 90) && committedSum() == 90, "the first 90 records read and committed");
            Map<TopicPartition, OffsetAndMetadata> before = committed();
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(GROUP)).get(GROUP).get(30, TimeUnit.SECONDS);
            int coordinatorId = d.coordinator().id();

            cluster.node(coordinatorId).kill();
            produce(90, 180);
            await(consumers, () -> allRead(consumers, 180), "all 180 records read after broker " + coordinatorId + " (the coordinator) was killed");
            await(consumers, () -> committedSum() == 180, "committed offsets covering all 180 records");
            Map<TopicPartition, OffsetAndMetadata> after = committed();
            before.forEach((tp, o) -> assertThat(after.get(tp).offset()).as("committed offset of " + tp).isGreaterThanOrEqualTo(o.offset()));
            ConsumerGroupDescription now = admin.describeConsumerGroups(List.of(GROUP)).get(GROUP).get(30, TimeUnit.SECONDS);
            assertThat(now.coordinator().id()).isNotEqualTo(coordinatorId);
        } finally {
            consumers.forEach(ConsumerProcess::close);
        }
    }
}
