package io.raftline.tests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.tests.cluster.PrometheusText;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Incremental fetch sessions (KIP-227) on the Kafka listener: kafka-clients' consumer of many partitions fetches in a
 * session (each fetch names only what changed, each answer only what is new), reads every record once and in order
 * while the set it fetches changes, and a session outlives the connection it was made on. Followers replicate in
 * sessions of the same cache, and so does the SDK's consumer over gRPC.
 */
@Timeout(300)
class KafkaFetchSessionsIT {

    private static final int PARTITIONS = 64;
    /** The partitions the producers write to: a few of many, so most of a session's partitions have nothing new. */
    private static final int[] WRITTEN = {0, 9, 33, 63};

    @RegisterExtension
    static final KafkaListenerCluster KAFKA = new KafkaListenerCluster();

    private static double clusterSum(String name, Map<String, String> labels) {
        double total = 0;
        for (TestNode node : KAFKA.cluster().nodes()) {
            total += PrometheusText.sum(node.scrapeMetrics(), name, labels);
        }
        return total;
    }

    /** Kafka consumers' incremental fetches, cluster-wide. */
    private static double incrementalFetches() {
        return sessionFetches("consumer", "incremental");
    }

    private static double sessionFetches(String from, String kind) {
        return clusterSum("raftline_fetch_session_requests_total", Map.of("from", from, "kind", kind));
    }

    private static KafkaProducer<String, String> producer() {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        p.setProperty("acks", "all");
        p.setProperty("linger.ms", "2");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(String group) {
        Properties cp = new Properties();
        cp.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        if (group != null) {
            cp.setProperty("group.id", group);
            cp.setProperty("enable.auto.commit", "false");
        }
        cp.setProperty("auto.offset.reset", "earliest");
        // small answers, so that reading takes many fetches
        cp.setProperty("max.partition.fetch.bytes", "2048");
        cp.setProperty("fetch.max.wait.ms", "100");
        return new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer());
    }

    /** Sends {@code perPartition} records to each written partition; values say "partition:sequence". */
    private static void produce(KafkaProducer<String, String> producer, String topic, int from, int perPartition)
        throws Exception {
        List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
        for (int i = from; i < from + perPartition; i++) {
            for (int p : WRITTEN) {
                acks.add(producer.send(new ProducerRecord<>(topic, p, "k" + i, p + ":" + i)));
            }
        }
        for (java.util.concurrent.Future<?> ack : acks) {
            ack.get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Per partition, what consumers read, checked as it arrives: offsets without gaps and values in the order they
     * were produced. {@code rereadAllowed}: a group's new owner of a partition may read again from the committed
     * offset after a rebalance (at least once), never skip one.
     */
    private static final class Reads {
        final Map<Integer, List<Long>> offsets = new HashMap<>();
        final boolean rereadAllowed;

        Reads(boolean rereadAllowed) {
            this.rereadAllowed = rereadAllowed;
        }

        void add(ConsumerRecord<String, String> r) {
            add(r.partition(), r.offset(), r.value());
        }

        void add(int partition, long offset, String value) {
            List<Long> seen = offsets.computeIfAbsent(partition, p -> new ArrayList<>());
            long expected = seen.isEmpty() ? 0 : seen.get(seen.size() - 1) + 1;
            if (rereadAllowed) {
                assertThat(offset).as("partition %d: no record skipped after %s", partition, expected - 1)
                    .isLessThanOrEqualTo(expected);
            } else {
                assertThat(offset).as("partition %d read once, in order", partition).isEqualTo(expected);
            }
            assertThat(value).isEqualTo(partition + ":" + offset);
            seen.add(offset);
        }

        long distinct(int partition) {
            return offsets.getOrDefault(partition, List.of()).stream().distinct().count();
        }
    }

    private static void pollInto(KafkaConsumer<String, String> consumer, Reads reads) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
            reads.add(r);
        }
    }

    /**
     * One consumer holding 64 partitions while a producer writes to 4 of them: every record read once and in order,
     * in fetch sessions (the broker counts incremental fetches and holds a session). Then the consumer drops most of
     * its partitions (the broker forgets them from the session), records keep coming only for what it still holds,
     * and once it takes all of them back it reads the rest, once and in order.
     */
    @Test
    void aConsumerOfManyPartitionsFetchesIncrementallyAndForgetsWhatItDrops() throws Exception {
        String topic = "sessions-assign";
        KAFKA.createTopic(topic, PARTITIONS, 2);
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(new TopicPartition(topic, p));
        }
        double incrementalBefore = incrementalFetches();
        double fullBefore = sessionFetches("consumer", "full");
        Reads reads = new Reads(false);
        try (KafkaProducer<String, String> producer = producer(); KafkaConsumer<String, String> consumer = consumer(null)) {
            consumer.assign(all);
            int perRound = 25;
            for (int round = 0; round < 4; round++) {
                produce(producer, topic, round * perRound, perRound);
                long want = (long) (round + 1) * perRound;
                TestCluster.await(() -> {
                    pollInto(consumer, reads);
                    return java.util.Arrays.stream(WRITTEN).allMatch(p -> reads.distinct(p) == want);
                }, Duration.ofSeconds(60), "round " + round + " read");
            }
            assertThat(clusterSum("raftline_fetch_sessions", Map.of())).as("sessions held").isPositive();

            // keep only partitions 0 and 9 (33 and 63 are forgotten); all four get records
            consumer.assign(List.of(all.get(0), all.get(9)));
            produce(producer, topic, 100, 25);
            TestCluster.await(() -> {
                pollInto(consumer, reads);
                return reads.distinct(0) == 125 && reads.distinct(9) == 125;
            }, Duration.ofSeconds(60), "the partitions kept read");
            for (int i = 0; i < 5; i++) {
                pollInto(consumer, reads);
            }
            assertThat(reads.distinct(33)).as("a dropped partition").isEqualTo(100);
            assertThat(reads.distinct(63)).as("a dropped partition").isEqualTo(100);

            // all back, from where it stopped on each
            consumer.assign(all);
            consumer.seek(all.get(33), 100);
            consumer.seek(all.get(63), 100);
            produce(producer, topic, 125, 25);
            TestCluster.await(() -> {
                pollInto(consumer, reads);
                return java.util.Arrays.stream(WRITTEN).allMatch(p -> reads.distinct(p) == 150);
            }, Duration.ofSeconds(60), "every record read");
        }
        // a few full fetches (one per broker it fetches from), the rest incremental
        double full = sessionFetches("consumer", "full") - fullBefore;
        double incremental = incrementalFetches() - incrementalBefore;
        assertThat(incremental).as("incremental fetches").isGreaterThanOrEqualTo(10).isGreaterThan(2 * full);
        for (int p = 0; p < PARTITIONS; p++) {
            int partition = p;
            boolean written = java.util.Arrays.stream(WRITTEN).anyMatch(w -> w == partition);
            assertThat(reads.distinct(p)).as("partition %d", p).isEqualTo(written ? 150 : 0);
        }
    }

    private static void pollInto(io.raftline.client.consumer.RaftlineConsumer<String, String> consumer, Reads reads) {
        for (io.raftline.client.consumer.ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
            reads.add(r.partition(), r.offset(), r.value());
        }
    }

    /**
     * The SDK's consumer over gRPC fetches in sessions of the same cache: holding 64 partitions while a producer writes
     * to 4, it reads every record once and in order with incremental fetches (none sessionless); it drops two
     * partitions (unassigned) and pauses two, which its sessions forget, and reads the rest once it takes them back;
     * closing it frees its sessions on the brokers at once (epoch -1).
     */
    @Test
    void anSdkConsumerOfManyPartitionsFetchesIncrementallyOverGrpc() throws Exception {
        String topic = "sessions-sdk";
        KAFKA.createTopic(topic, PARTITIONS, 2);
        List<io.raftline.client.common.TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(new io.raftline.client.common.TopicPartition(topic, p));
        }
        double incrementalBefore = incrementalFetches();
        double fullBefore = sessionFetches("consumer", "full");
        double sessionlessBefore = sessionFetches("consumer", "sessionless");
        long leaders = KAFKA.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
            .partitions().stream().map(p -> p.leader().id()).distinct().count();
        double sessionsHeld;
        Reads reads = new Reads(false);
        try (KafkaProducer<String, String> producer = producer();
             io.raftline.client.consumer.RaftlineConsumer<String, String> consumer =
                 new io.raftline.client.consumer.RaftlineConsumer<>(KAFKA.cluster().clientProperties(
                     "auto.offset.reset", "earliest", "max.partition.fetch.bytes", "2048", "fetch.max.wait.ms", "100"),
                     new io.raftline.client.common.serialization.StringDeserializer(),
                     new io.raftline.client.common.serialization.StringDeserializer())) {
            consumer.assign(all);
            int perRound = 25;
            for (int round = 0; round < 4; round++) {
                produce(producer, topic, round * perRound, perRound);
                long want = (long) (round + 1) * perRound;
                TestCluster.await(() -> {
                    pollInto(consumer, reads);
                    return java.util.Arrays.stream(WRITTEN).allMatch(p -> reads.distinct(p) == want);
                }, Duration.ofSeconds(60), "round " + round + " read");
            }

            // drop 63, pause 33: both forgotten by the sessions; all four get records
            consumer.assign(all.subList(0, 63));
            consumer.pause(List.of(all.get(33)));
            produce(producer, topic, 100, 25);
            TestCluster.await(() -> {
                pollInto(consumer, reads);
                return reads.distinct(0) == 125 && reads.distinct(9) == 125;
            }, Duration.ofSeconds(60), "the partitions kept read");
            for (int i = 0; i < 5; i++) {
                pollInto(consumer, reads);
            }
            assertThat(reads.distinct(33)).as("a paused partition").isEqualTo(100);
            assertThat(reads.distinct(63)).as("a dropped partition").isEqualTo(100);

            // both back, from where each stopped
            consumer.resume(List.of(all.get(33)));
            consumer.assign(all);
            consumer.seek(all.get(63), 100);
            produce(producer, topic, 125, 25);
            TestCluster.await(() -> {
                pollInto(consumer, reads);
                return java.util.Arrays.stream(WRITTEN).allMatch(p -> reads.distinct(p) == 150);
            }, Duration.ofSeconds(60), "every record read");
            assertThat(sessionFetches("consumer", "sessionless") - sessionlessBefore).as("sessionless consumer fetches")
                .isZero();
            sessionsHeld = clusterSum("raftline_fetch_sessions", Map.of());
        }
        // closed with the consumer (epoch -1): one session per broker it fetched from
        TestCluster.await(() -> clusterSum("raftline_fetch_sessions", Map.of()) <= sessionsHeld - leaders,
            Duration.ofSeconds(10), "the consumer's sessions closed with it");
        // a few full fetches (one per broker it fetches from, again after a refusal), the rest incremental
        double full = sessionFetches("consumer", "full") - fullBefore;
        double incremental = incrementalFetches() - incrementalBefore;
        assertThat(incremental).as("incremental fetches").isGreaterThanOrEqualTo(10).isGreaterThan(2 * full);
        for (int p = 0; p < PARTITIONS; p++) {
            int partition = p;
            boolean written = java.util.Arrays.stream(WRITTEN).anyMatch(w -> w == partition);
            assertThat(reads.distinct(p)).as("partition %d", p).isEqualTo(written ? 150 : 0);
        }
    }

    /**
     * Two kafka-clients consumers in one group over 64 partitions: the second joins and later leaves, so each one's
     * assignment changes twice while a producer writes. No record is ever skipped (a new owner may read again from
     * the committed offset, never past it) and together they read everything.
     */
    @Test
    void aGroupWhoseAssignmentChangesKeepsReading() throws Exception {
        String topic = "sessions-group";
        String group = "sessions-group";
        KAFKA.createTopic(topic, PARTITIONS, 2);
        double incrementalBefore = incrementalFetches();
        // both members' reads in the order they came: each partition has one owner at a time (eager rebalances)
        Reads reads = new Reads(true);
        try (KafkaProducer<String, String> producer = producer();
             KafkaConsumer<String, String> c1 = consumer(group)) {
            c1.subscribe(List.of(topic));
            produce(producer, topic, 0, 30);
            TestCluster.await(() -> {
                pollInto(c1, reads);
                c1.commitSync(Duration.ofSeconds(30));
                return java.util.Arrays.stream(WRITTEN).allMatch(p -> reads.distinct(p) == 30);
            }, Duration.ofSeconds(60), "the first member read the first records");

            try (KafkaConsumer<String, String> c2 = consumer(group)) {
                c2.subscribe(List.of(topic));
                TestCluster.await(() -> {
                    pollInto(c1, reads);
                    pollInto(c2, reads);
                    return !c2.assignment().isEmpty() && c1.assignment().size() + c2.assignment().size() == PARTITIONS;
                }, Duration.ofSeconds(60), "both members assigned");
                produce(producer, topic, 30, 30);
                TestCluster.await(() -> {
                    pollInto(c1, reads);
                    c1.commitSync(Duration.ofSeconds(30));
                    pollInto(c2, reads);
                    c2.commitSync(Duration.ofSeconds(30));
                    return java.util.Arrays.stream(WRITTEN).allMatch(p -> reads.distinct(p) == 60);
                }, Duration.ofSeconds(60), "the two members read the second records");
            }
            produce(producer, topic, 60, 30);
            TestCluster.await(() -> {
                pollInto(c1, reads);
                c1.commitSync(Duration.ofSeconds(30));
                return c1.assignment().size() == PARTITIONS
                    && java.util.Arrays.stream(WRITTEN).allMatch(p -> reads.distinct(p) == 90
                        && c1.position(new TopicPartition(topic, p)) == 90);
            }, Duration.ofSeconds(60), "the first member alone again, everything read");
        }
        assertThat(incrementalFetches() - incrementalBefore).as("incremental fetches").isGreaterThanOrEqualTo(10);
    }

    /**
     * Followers replicate over gRPC in fetch sessions with their leaders: acks=all produces to a replication-factor-3
     * topic complete (the high watermark follows the followers), every replica ends with every record, and the
     * followers' fetches are incremental, none sessionless.
     */
    @Test
    void followersReplicateInFetchSessions() throws Exception {
        String topic = "sessions-followers";
        KAFKA.createTopic(topic, 8, 3);
        double incrementalBefore = sessionFetches("follower", "incremental");
        int records = 400;
        try (KafkaProducer<String, String> producer = producer()) {
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, i % 8, "k" + i, "v" + i)));
            }
            for (java.util.concurrent.Future<?> ack : acks) {
                ack.get(30, TimeUnit.SECONDS);
            }
        }
        TestCluster.await(() -> clusterSum("raftline_log_end_offset", Map.of("topic", topic)) == 3.0 * records,
            Duration.ofSeconds(60), "every replica with every record");
        assertThat(sessionFetches("follower", "incremental") - incrementalBefore).as("followers' incremental fetches")
            .isPositive();
        assertThat(sessionFetches("follower", "sessionless")).as("followers' sessionless fetches").isZero();
        assertThat(sessionFetches("follower", "error")).as("followers' refused sessions").isZero();
    }

    /**
     * The protocol itself, each request on a connection of its own (a session is the broker's, not the connection's):
     * a full fetch creates a session and answers every partition; incremental fetches are answered with only the
     * partitions that have something new, forget what they are told to, wait in the long poll until data arrives, and
     * a wrong epoch or an unknown session is refused with Kafka's errors.
     */
    @Test
    void incrementalAnswersCarryOnlyWhatIsNewOnAnyConnection() throws Exception {
        String topic = "sessions-wire";
        KAFKA.createTopic(topic, 8, 1);
        TopicDescription description = KAFKA.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
            .get(topic);
        int leader = description.partitions().get(0).leader().id();
        List<Integer> led = description.partitions().stream().filter(p -> p.leader().id() == leader)
            .map(org.apache.kafka.common.TopicPartitionInfo::partition).toList();
        int port = KAFKA.cluster().nodes().stream().filter(n -> n.id() == leader).findFirst().orElseThrow().kafkaPort();
        int a = led.get(0);
        try (KafkaProducer<String, String> producer = producer()) {
            producer.send(new ProducerRecord<>(topic, a, "k", "first")).get(30, TimeUnit.SECONDS);

            // every replica led there ready (a sessionless fetch answers none with an error), so that nothing but
            // what this test does changes in the session
            TestCluster.await(() -> fetch(port, 0, -1, 0, partitions(topic, led, 0), List.of()).responses().stream()
                .flatMap(t -> t.partitions().stream()).allMatch(p -> p.errorCode() == Errors.NONE.code()),
                Duration.ofSeconds(30), "the leader's replicas ready");
            FetchResponseData full = fetch(port, 0, 0, 0, partitions(topic, led, 0), List.of());
            assertThat(full.errorCode()).isEqualTo(Errors.NONE.code());
            int session = full.sessionId();
            assertThat(session).as("a session").isNotZero();
            assertThat(answered(full)).containsExactlyInAnyOrderElementsOf(led);

            // the position moves past the record; nothing else is new: an empty answer
            FetchResponseData nothing = fetch(port, session, 1, 0, partitions(topic, List.of(a), 1), List.of());
            assertThat(nothing.sessionId()).isEqualTo(session);
            assertThat(answered(nothing)).isEmpty();

            producer.send(new ProducerRecord<>(topic, a, "k", "second")).get(30, TimeUnit.SECONDS);
            FetchResponseData news = fetch(port, session, 2, 0, List.of(), List.of());
            assertThat(answered(news)).containsExactly(a);
            assertThat(records(news, a)).isEqualTo(1);

            // the long poll: parked until a record arrives (60 s wait; the read gives up at 30)
            CompletableFuture<FetchResponseData> parked = CompletableFuture.supplyAsync(
                () -> fetch(port, session, 3, 60_000, partitions(topic, List.of(a), 2), List.of()));
            TestCluster.await(() -> clusterSum("raftline_fetch_parked", Map.of("from", "consumer")) > 0,
                Duration.ofSeconds(30), "the fetch parked");
            producer.send(new ProducerRecord<>(topic, a, "k", "third")).get(30, TimeUnit.SECONDS);
            FetchResponseData woken = parked.get(30, TimeUnit.SECONDS);
            assertThat(answered(woken)).containsExactly(a);
            assertThat(records(woken, a)).isEqualTo(1);

            // forgotten: its records are no longer read
            FetchResponseData forgot = fetch(port, session, 4, 0, List.of(), List.of(a));
            assertThat(answered(forgot)).isEmpty();
            producer.send(new ProducerRecord<>(topic, a, "k", "fourth")).get(30, TimeUnit.SECONDS);
            assertThat(answered(fetch(port, session, 5, 0, List.of(), List.of()))).isEmpty();

            FetchResponseData stale = fetch(port, session, 5, 0, List.of(), List.of());
            assertThat(stale.errorCode()).isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH.code());
            FetchResponseData unknown = fetch(port, session + 1, 1, 0, List.of(), List.of());
            assertThat(unknown.errorCode()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
            // closed (FINAL_EPOCH): a sessionless full answer, and the session is gone
            FetchResponseData closed = fetch(port, session, -1, 0, partitions(topic, List.of(a), 3), List.of());
            assertThat(closed.sessionId()).isZero();
            assertThat(answered(closed)).containsExactly(a);
            assertThat(fetch(port, session, 6, 0, List.of(), List.of()).errorCode())
                .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
        }
    }

    private static List<FetchRequestData.FetchPartition> partitions(String topic, List<Integer> partitions, long offset) {
        return partitions.stream().map(p -> new FetchRequestData.FetchPartition().setPartition(p).setFetchOffset(offset)
            .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(-1).setLastFetchedEpoch(-1).setLogStartOffset(-1))
            .toList();
    }

    /** One Fetch v12 of {@code topic} on a new connection: {@code parts} and {@code forget} are of sessions-wire. */
    private static FetchResponseData fetch(int port, int sessionId, int epoch, int maxWaitMs,
                                           List<FetchRequestData.FetchPartition> parts, List<Integer> forget) {
        FetchRequestData data = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(maxWaitMs).setMinBytes(1)
            .setMaxBytes(1 << 20).setIsolationLevel((byte) 0).setSessionId(sessionId).setSessionEpoch(epoch)
            .setRackId("");
        if (!parts.isEmpty()) {
            data.topics().add(new FetchRequestData.FetchTopic().setTopic("sessions-wire").setPartitions(new ArrayList<>(parts)));
        }
        if (!forget.isEmpty()) {
            data.forgottenTopicsData().add(new FetchRequestData.ForgottenTopic().setTopic("sessions-wire")
                .setPartitions(new ArrayList<>(forget)));
        }
        try {
            return ((FetchResponse) KafkaWire.send(port, new FetchRequest(data, (short) 12))).data();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<Integer> answered(FetchResponseData answer) {
        return answer.responses().stream().flatMap(t -> t.partitions().stream())
            .map(FetchResponseData.PartitionData::partitionIndex).toList();
    }

    private static int records(FetchResponseData answer, int partition) {
        FetchResponseData.PartitionData p = answer.responses().stream().flatMap(t -> t.partitions().stream())
            .filter(d -> d.partitionIndex() == partition).findFirst().orElseThrow();
        int n = 0;
        for (org.apache.kafka.common.record.internal.RecordBatch batch
            : ((org.apache.kafka.common.record.internal.MemoryRecords) p.records()).batches()) {
            for (org.apache.kafka.common.record.internal.Record ignored : batch) {
                n++;
            }
        }
        return n;
    }
}
