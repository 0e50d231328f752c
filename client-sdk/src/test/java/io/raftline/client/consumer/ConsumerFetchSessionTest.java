package io.raftline.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.client.testing.FakeCluster;
import io.raftline.protocol.broker.FetchRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The consumer's fetcher in incremental fetch sessions (KIP-227) with fake brokers that keep sessions by the broker's
 * rules: one session per broker, a full fetch first, then fetches naming only what changed and forgetting what is no
 * longer fetched; a refused session starts over; close ends the sessions; brokers without sessions get full fetches.
 * Partition p of "many" is led by broker (p mod 2) + 1.
 */
@Timeout(60)
class ConsumerFetchSessionTest {

    private static final int PARTITIONS = 8;
    private FakeCluster cluster;
    private final List<TopicPartition> all = IntStream.range(0, PARTITIONS)
        .mapToObj(p -> new TopicPartition("many", p)).toList();

    @BeforeEach
    void start() throws Exception {
        cluster = FakeCluster.start(2);
        cluster.createTopic("many", PARTITIONS);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private RaftlineConsumer<String, String> consumer() {
        Map<String, Object> m = new HashMap<>();
        m.put("bootstrap.servers", cluster.bootstrap());
        m.put("retry.backoff.ms", 5);
        m.put("fetch.max.wait.ms", 50);
        m.put("auto.offset.reset", "earliest");
        return new RaftlineConsumer<>(m, new StringDeserializer(), new StringDeserializer());
    }

    /** Values "p:i" for i in [from, to) to partition p, one batch. */
    private void produce(int partition, int from, int to) throws Exception {
        Map<String, Object> config = Map.of("bootstrap.servers", cluster.bootstrap(), "linger.ms", 60_000);
        try (RaftlineProducer<String, String> p = new RaftlineProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int i = from; i < to; i++) {
                p.send(new ProducerRecord<>("many", partition, "k", partition + ":" + i));
            }
            p.flush();
        }
    }

    /** Polls until partition p has {@code upTo} records read, checking each partition reads once and in order. */
    private static void readUpTo(RaftlineConsumer<String, String> c, Map<Integer, List<Long>> reads, int partition, int upTo) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reads.getOrDefault(partition, List.of()).size() < upTo && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(50))) {
                List<Long> seen = reads.computeIfAbsent(r.partition(), k -> new ArrayList<>());
                assertThat(r.offset()).as("partition %d read once, in order", r.partition()).isEqualTo(seen.size());
                assertThat(r.value()).isEqualTo(r.partition() + ":" + r.offset());
                seen.add(r.offset());
            }
        }
        assertThat(reads.getOrDefault(partition, List.of())).as("partition %d", partition).hasSize(upTo);
    }

    private static boolean forgotten(List<FetchRequest> wire, int from, int partition) {
        return wire.subList(from, wire.size()).stream().anyMatch(r -> forgets(r, partition));
    }

    private static boolean full(FetchRequest r) {
        return r.getSessionEpoch() == 0;
    }

    private static long timesNamed(List<FetchRequest> wire, int partition) {
        return wire.stream().flatMap(r -> r.getPartitionsList().stream()).filter(p -> p.getPartition() == partition).count();
    }

    private static boolean forgets(FetchRequest r, int partition) {
        return r.getForgottenList().stream().anyMatch(f -> f.getPartition() == partition);
    }

    @Test
    void oneSessionPerBrokerThenOnlyWhatChangedIsNamed() throws Exception {
        cluster.enableFetchSessions();
        Map<Integer, List<Long>> reads = new HashMap<>();
        try (RaftlineConsumer<String, String> c = consumer()) {
            c.assign(all);
            produce(0, 0, 10);
            readUpTo(c, reads, 0, 10);
            produce(0, 10, 20);
            produce(1, 0, 5);
            readUpTo(c, reads, 0, 20);
            readUpTo(c, reads, 1, 5);
            for (int i = 0; i < 5; i++) {
                c.poll(Duration.ofMillis(50));
            }
        }
        List<FetchRequest> wire = cluster.fetchWire();
        assertThat(wire).as("every fetch in a session").allMatch(FetchRequest::hasSessionEpoch);
        List<FetchRequest> fetches = wire.stream().filter(r -> r.getSessionEpoch() >= 0).toList();
        assertThat(fetches.stream().filter(ConsumerFetchSessionTest::full)).as("one full fetch per broker").hasSize(2);
        assertThat(fetches.stream().filter(r -> !full(r)).count()).as("incremental fetches").isGreaterThanOrEqualTo(4);
        // idle partitions are named once, when added, and never again
        for (int p = 2; p < PARTITIONS; p++) {
            assertThat(timesNamed(fetches, p)).as("partition %d named", p).isEqualTo(1);
        }
        assertThat(fetches.stream().filter(r -> !full(r) && r.getPartitionsCount() == 0)).as("fetches naming nothing")
            .isNotEmpty();
        // closed with the consumer: epoch -1, nothing named
        assertThat(wire.stream().filter(r -> r.getSessionEpoch() == -1)).hasSize(2)
            .allMatch(r -> r.getPartitionsCount() == 0 && r.getSessionId() != 0);
        assertThat(cluster.fetchSessionCount()).as("sessions left on the brokers").isZero();
    }

    @Test
    void pausedAndUnassignedPartitionsAreForgottenAndNamedAgainWhenBack() throws Exception {
        cluster.enableFetchSessions();
        Map<Integer, List<Long>> reads = new HashMap<>();
        try (RaftlineConsumer<String, String> c = consumer()) {
            c.assign(all);
            produce(0, 0, 5);
            readUpTo(c, reads, 0, 5);
            c.pause(List.of(all.get(2)));
            c.assign(all.subList(0, 7));
            int mark = cluster.fetchWire().size();
            produce(2, 0, 5);
            produce(7, 0, 5);
            produce(0, 5, 10);
            readUpTo(c, reads, 0, 10);
            // Partitions 2 and 7 may be led by a broker whose next fetch (one in flight per broker) goes out only on a
            // later poll than the one that brought partition 0's records: poll on until both were forgotten (bounded).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!(forgotten(cluster.fetchWire(), mark, 2) && forgotten(cluster.fetchWire(), mark, 7))
                && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(50))) {
                    reads.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.offset());
                }
            }
            List<FetchRequest> after = cluster.fetchWire().subList(mark, cluster.fetchWire().size());
            assertThat(after).as("partition 2 (paused) forgotten").anyMatch(r -> forgets(r, 2));
            assertThat(after).as("partition 7 (unassigned) forgotten").anyMatch(r -> forgets(r, 7));
            assertThat(reads).doesNotContainKeys(2, 7);

            c.resume(List.of(all.get(2)));
            c.assign(all);
            readUpTo(c, reads, 2, 5);
            readUpTo(c, reads, 7, 5);
        }
    }

    @Test
    void aPartitionLeftOutForItsFullBufferDoesNotWaitOutALongPollOfTheOthers() throws Exception {
        cluster.enableFetchSessions();
        Map<String, Object> config = Map.of("bootstrap.servers", cluster.bootstrap(), "linger.ms", 60_000);
        try (RaftlineProducer<String, String> p = new RaftlineProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 200; i++) {
                p.send(new ProducerRecord<>("many", 0, "k", "0:" + i));
                if (i % 10 == 9) {
                    p.flush();
                }
            }
        }
        Map<String, Object> m = new HashMap<>();
        m.put("bootstrap.servers", cluster.bootstrap());
        m.put("fetch.max.wait.ms", 30_000);
        m.put("auto.offset.reset", "earliest");
        m.put("max.partition.fetch.bytes", 1);
        m.put("max.poll.records", 1);
        Map<Integer, List<Long>> reads = new HashMap<>();
        try (RaftlineConsumer<String, String> c = new RaftlineConsumer<>(m, new StringDeserializer(), new StringDeserializer())) {
            c.assign(all);
            // one batch (10 records) per answer, one record per poll: partition 0's buffer fills while its broker's
            // other partitions (2, 4, 6) have nothing; a parked fetch of theirs would hold partition 0 back for 30 s.
            // The application drains slower than answers come: before each poll, the broker has read the fetch the
            // last poll sent for partition 0 (else a fast enough poll loop empties the buffer before it is ever full)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (reads.getOrDefault(0, List.of()).size() < 200 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(50))) {
                    reads.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.offset());
                }
                long asked = cluster.fetchWire().stream().flatMap(r -> r.getPartitionsList().stream())
                    .filter(fp -> fp.getTopic().equals("many") && fp.getPartition() == 0)
                    .mapToLong(FetchRequest.FetchPartition::getFetchOffset).max().orElse(-1);
                while (asked >= 0 && !cluster.fetchOffsets("many", 0).contains(asked) && System.nanoTime() < deadline) {
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            }
            assertThat(reads.get(0)).as("partition 0 read once, in order").containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, 200).boxed().toList());
        }
        List<FetchRequest> leavingOut = cluster.fetchWire().stream().filter(r -> forgets(r, 0)).toList();
        assertThat(leavingOut).as("fetches forgetting partition 0 while it is buffered full").isNotEmpty()
            .allMatch(r -> r.getMaxWaitMs() == 0);
    }

    @Test
    void aRefusedSessionStartsOverWithAFullFetchAndLosesNothing() throws Exception {
        cluster.enableFetchSessions();
        Map<Integer, List<Long>> reads = new HashMap<>();
        try (RaftlineConsumer<String, String> c = consumer()) {
            c.assign(all);
            produce(0, 0, 10);
            produce(1, 0, 10);
            readUpTo(c, reads, 0, 10);
            readUpTo(c, reads, 1, 10);
            int mark = cluster.fetchWire().size();
            cluster.dropFetchSessions();
            produce(0, 10, 20);
            produce(1, 10, 20);
            readUpTo(c, reads, 0, 20);
            readUpTo(c, reads, 1, 20);
            // every broker's session made again (a fetch parked before the drop may first be answered in it)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cluster.fetchSessionCount() < 2 && System.nanoTime() < deadline) {
                assertThat(c.poll(Duration.ofMillis(50)).isEmpty()).isTrue();
            }
            assertThat(cluster.fetchSessionCount()).isEqualTo(2);
            List<FetchRequest> after = cluster.fetchWire().subList(mark, cluster.fetchWire().size());
            // refused, then a full fetch naming the lost session (epoch 0 closes it) and every partition of its broker
            assertThat(after).filteredOn(r -> full(r) && r.getSessionId() != 0).hasSize(2)
                .allMatch(r -> r.getPartitionsCount() == PARTITIONS / 2);
        }
    }

    @Test
    void brokersWithoutSessionsGetFullFetches() throws Exception {
        Map<Integer, List<Long>> reads = new HashMap<>();
        try (RaftlineConsumer<String, String> c = consumer()) {
            c.assign(all);
            produce(0, 0, 10);
            readUpTo(c, reads, 0, 10);
            produce(0, 10, 20);
            readUpTo(c, reads, 0, 20);
        }
        List<FetchRequest> wire = cluster.fetchWire();
        assertThat(wire).as("full fetches asking for a session").isNotEmpty().allMatch(r -> r.hasSessionEpoch()
            && r.getSessionId() == 0 && r.getSessionEpoch() == 0 && r.getForgottenCount() == 0);
        assertThat(wire.stream().filter(r -> r.getPartitionsCount() == PARTITIONS / 2).count())
            .as("fetches naming every partition of their broker").isGreaterThan(wire.size() / 2);
    }
}
