package io.raftline.tests.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Replication with real node processes: kill -9 a partition leader under an acks=all load and find every
 * acknowledged record at its offset (with the SDK, and with kafka-clients over the Kafka listener); SIGSTOP a follower and watch it leave the ISR, SIGCONT and watch it rejoin.
 */
@Timeout(600)
class FailoverIT {

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

    private static TopicPartitionInfo describe(String topic) throws Exception {
        return describe(admin, topic);
    }

    private static TopicPartitionInfo describe(Admin through, String topic) throws Exception {
        return through.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0);
    }

    private static void createTopic(String topic) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
            .all().get();
        TestCluster.await(() -> {
            try {
                TopicPartitionInfo p = describe(topic);
                return p.leader() != null && p.isr().size() == 3;
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(30), topic + " to have a leader and a full ISR");
    }

    @Test
    void killingTheLeaderUnderAcksAllLosesNothingAcknowledged() throws Exception {
        String topic = "failover";
        createTopic(topic);
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", cluster.bootstrap());
        props.setProperty("acks", "all");
        props.setProperty("delivery.timeout.ms", "60000");
        int total = 6000;
        Map<Integer, Long> ackedOffsets = new ConcurrentHashMap<>();
        AtomicInteger failed = new AtomicInteger();
        TestNode victim;
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(props, new StringSerializer(),
            new StringSerializer())) {
            for (int i = 0; i < total; i++) {
                int n = i;
                producer.send(new ProducerRecord<>(topic, 0, null, "v-" + i), (md, e) -> {
                    if (e == null) {
                        ackedOffsets.put(n, md.offset());
                    } else {
                        failed.incrementAndGet();
                    }
                });
                if (i == total / 3) {
                    producer.flush();
                    victim = cluster.node(describe(topic).leader().id());
                    victim.kill();
                }
            }
            producer.flush();
        }
        // Bring the victim back so the reads below see a full cluster, and check every ack.
        for (TestNode node : cluster.nodes()) {
            if (!node.isRunning()) {
                node.start();
            }
        }
        cluster.awaitReady(Duration.ofSeconds(60));
        assertThat(ackedOffsets.size() + failed.get()).isEqualTo(total);
        assertThat(ackedOffsets).isNotEmpty();

        Properties cprops = new Properties();
        cprops.setProperty("bootstrap.servers", cluster.bootstrap());
        Map<Long, String> stored = new ConcurrentHashMap<>();
        long lastOffset = ackedOffsets.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        try (RaftlineConsumer<String, String> consumer = new RaftlineConsumer<>(cprops, new StringDeserializer(),
            new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            long previous = -1;
            while (consumer.position(tp) <= lastOffset && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    assertThat(r.offset()).isGreaterThan(previous);
                    previous = r.offset();
                    stored.put(r.offset(), r.value());
                }
            }
        }
        for (Map.Entry<Integer, Long> ack : ackedOffsets.entrySet()) {
            assertThat(stored.get(ack.getValue())).as("acknowledged record %d at offset %d", ack.getKey(), ack.getValue())
                .isEqualTo("v-" + ack.getKey());
        }
    }

    /**
     * The same through the Kafka listener with Kafka's own clients (issue 22): an idempotent kafka-clients producer at
     * acks=all loses its partition leader to kill -9 under load; every acknowledged record is read back by a
     * kafka-clients consumer at its offset, and no record is stored twice (the producer's retries after the failover
     * are deduplicated by the new leader).
     */
    @Test
    void kafkaClientsLoseNothingAcknowledgedWhenTheLeaderIsKilled() throws Exception {
        String topic = "kafka-failover";
        createTopic(topic);
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        props.setProperty("acks", "all");
        props.setProperty("enable.idempotence", "true");
        props.setProperty("linger.ms", "2");
        props.setProperty("delivery.timeout.ms", "60000");
        props.setProperty("request.timeout.ms", "10000");
        int total = 6000;
        Map<Integer, Long> ackedOffsets = new ConcurrentHashMap<>();
        AtomicInteger failed = new AtomicInteger();
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                 new org.apache.kafka.clients.producer.KafkaProducer<>(props,
                     new org.apache.kafka.common.serialization.StringSerializer(),
                     new org.apache.kafka.common.serialization.StringSerializer())) {
            for (int i = 0; i < total; i++) {
                int n = i;
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, null, "v-" + i), (md, e) -> {
                    if (e == null) {
                        ackedOffsets.put(n, md.offset());
                    } else {
                        failed.incrementAndGet();
                    }
                });
                if (i == total / 3) {
                    producer.flush();
                    cluster.node(describe(topic).leader().id()).kill();
                }
            }
            producer.flush();
        }
        for (TestNode node : cluster.nodes()) {
            if (!node.isRunning()) {
                node.start();
            }
        }
        cluster.awaitReady(Duration.ofSeconds(60));
        assertThat(ackedOffsets.size() + failed.get()).isEqualTo(total);
        assertThat(ackedOffsets).hasSizeGreaterThan(total / 3);

        Properties cprops = new Properties();
        cprops.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        Map<Long, String> stored = new java.util.HashMap<>();
        Map<String, Integer> copies = new java.util.HashMap<>();
        long lastOffset = ackedOffsets.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        try (org.apache.kafka.clients.consumer.KafkaConsumer<String, String> consumer =
                 new org.apache.kafka.clients.consumer.KafkaConsumer<>(cprops,
                     new org.apache.kafka.common.serialization.StringDeserializer(),
                     new org.apache.kafka.common.serialization.StringDeserializer())) {
            org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            TestCluster.await(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                    assertThat(stored.put(r.offset(), r.value())).as("offset %d read twice", r.offset()).isNull();
                    copies.merge(r.value(), 1, Integer::sum);
                });
                return consumer.position(tp) > lastOffset;
            }, Duration.ofSeconds(60), "the consumer to read past the last acknowledged offset " + lastOffset);
        }
        for (Map.Entry<Integer, Long> ack : ackedOffsets.entrySet()) {
            assertThat(stored.get(ack.getValue())).as("acknowledged record %d at offset %d", ack.getKey(), ack.getValue())
                .isEqualTo("v-" + ack.getKey());
        }
        assertThat(copies).as("records stored more than once").allSatisfy((value, n) -> assertThat(n).isEqualTo(1));
    }

    @Test
    void aPausedFollowerLeavesTheIsrAndRejoins() throws Exception {
        String topic = "pause";
        createTopic(topic);
        TopicPartitionInfo p = describe(topic);
        int follower = p.replicas().stream().map(n -> n.id()).filter(id -> id != p.leader().id()).findFirst().orElseThrow();
        TestNode node = cluster.node(follower);
        node.pause();
        // watched through the other nodes: a request to the frozen one would wait out its timeout (30 s)
        try (Admin others = cluster.adminAvoiding(follower)) {
            TestCluster.await(() -> {
                try {
                    return describe(others, topic).isr().stream().noneMatch(n -> n.id() == follower);
                } catch (Exception e) {
                    return false;
                }
            }, Duration.ofSeconds(30), "broker " + follower + " to leave the ISR");
        } finally {
            node.resume();
        }
        TestCluster.await(() -> {
            try {
                return describe(topic).isr().size() == 3;
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(60), "broker " + follower + " to rejoin the ISR");
    }
}
