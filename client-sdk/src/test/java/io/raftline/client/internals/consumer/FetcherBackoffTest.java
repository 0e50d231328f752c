package io.raftline.client.internals.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.consumer.OffsetResetStrategy;
import io.raftline.client.internals.metadata.Metadata;
import io.raftline.client.internals.net.ConnectionPool;
import io.raftline.client.internals.retry.ExponentialBackoff;
import io.raftline.client.testing.FakeCluster;
import io.raftline.common.ManualTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A consumer whose partition leader died (the metadata still names it) backs off that broker exponentially, from
 * {@code reconnect.backoff.ms} to {@code reconnect.backoff.max.ms} on the consumer's clock, instead of asking it again
 * at a fixed short interval; a fetch that reaches the broker again resets the backoff; partitions on other brokers are
 * fetched meanwhile. The jitter draw is fixed at 0.5 (no spread) so the waits are exact.
 */
class FetcherBackoffTest {

    private static final long RECONNECT_BACKOFF_MS = 50;
    private static final long RECONNECT_BACKOFF_MAX_MS = 1000;

    private final ManualTime time = new ManualTime();
    private FakeCluster cluster;
    private ConnectionPool pool;
    private Fetcher<byte[], byte[]> fetcher;
    private SubscriptionState subscriptions;

    @BeforeEach
    void start() throws Exception {
        cluster = FakeCluster.start(2);
        cluster.createTopic("t", 2); // partition 0 led by broker 1, partition 1 by broker 2
        pool = new ConnectionPool("test", 64 << 20);
        Metadata metadata = new Metadata(Metadata.parseBootstrap(List.of(cluster.bootstrap(1))), pool, time,
            ExponentialBackoff.ofClient(100, 1000), () -> 0.5, 300_000, 30_000);
        metadata.addTopics(List.of("t"));
        metadata.refresh().get(10, TimeUnit.SECONDS);
        subscriptions = new SubscriptionState(OffsetResetStrategy.EARLIEST);
        fetcher = new Fetcher<>(new Fetcher.Settings(1, 0, 1 << 20, 1 << 20, true, 30_000, RECONNECT_BACKOFF_MS,
            RECONNECT_BACKOFF_MAX_MS), time, () -> 0.5, metadata, pool, subscriptions, new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
    }

    @AfterEach
    void stop() throws Exception {
        pool.close();
        cluster.close();
    }

    private void assign(TopicPartition... partitions) {
        subscriptions.assignFromUser(List.of(partitions));
        for (TopicPartition tp : partitions) {
            subscriptions.seek(tp, 0, null);
        }
    }

    /** Sends what is due now, waits (real time, bounded) for every answer or failure, and collects them. */
    private int fetchRound() throws InterruptedException {
        int requests = fetcher.sendFetches();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (fetcher.partitionsInFlight() > 0) {
            assertThat(System.nanoTime() - deadline).as("answers within 10 s").isNegative();
            fetcher.await(100);
            fetcher.collect(100);
        }
        return requests;
    }

    @Test
    void aDeadBrokerIsAskedAgainOnlyAfterAnExponentiallyGrowingBackoff() throws Exception {
        assign(new TopicPartition("t", 1));
        cluster.stopBroker(2);
        assertThat(fetchRound()).as("the first fetch goes out").isEqualTo(1);
        List<Long> waits = new ArrayList<>();
        for (int failure = 1; failure <= 7; failure++) {
            long waited = 0;
            while (fetchRound() == 0) {
                assertThat(waited).as("backoff after failure " + failure).isLessThan(10_000);
                time.advance(1);
                waited++;
            }
            waits.add(waited);
        }
        assertThat(waits).containsExactly(50L, 100L, 200L, 400L, 800L, 1000L, 1000L);
    }

    @Test
    void partitionsOnLiveBrokersAreFetchedWhileADeadOneIsBackedOff() throws Exception {
        assign(new TopicPartition("t", 0), new TopicPartition("t", 1));
        cluster.stopBroker(2);
        assertThat(fetchRound()).as("one request per leader").isEqualTo(2);
        int before = cluster.fetchOffsets("t", 0).size();
        for (int i = 0; i < 5; i++) {
            assertThat(fetchRound()).as("only broker 1 while broker 2 is backed off").isEqualTo(1);
        }
        assertThat(cluster.fetchOffsets("t", 0)).hasSize(before + 5);
        time.advance(RECONNECT_BACKOFF_MS);
        assertThat(fetchRound()).as("broker 2 asked again once its backoff ended").isEqualTo(2);
    }
}
