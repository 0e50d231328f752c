package io.raftline.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.client.common.PartitionInfo;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.testing.FakeCluster;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The consumer's {@code listTopics()}: retried like {@code partitionsFor} within default.api.timeout.ms. */
@Timeout(60)
class ConsumerListTopicsTest {

    private FakeCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = FakeCluster.start(2);
        cluster.createTopic("t", 2);
        cluster.createTopic("u", 3);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private RaftlineConsumer<String, String> consumer(String bootstrap, Object... kv) {
        Map<String, Object> m = new HashMap<>();
        m.put("bootstrap.servers", bootstrap);
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return new RaftlineConsumer<>(m, new StringDeserializer(), new StringDeserializer());
    }

    private static Map<String, Integer> sizes(Map<String, List<PartitionInfo>> topics) {
        Map<String, Integer> out = new HashMap<>();
        topics.forEach((t, ps) -> out.put(t, ps.size()));
        return out;
    }

    @Test
    void listTopicsRetriesFailedRequestsWithBackoff() {
        try (RaftlineConsumer<String, String> c = consumer(cluster.bootstrap(), "retry.backoff.ms", 50)) {
            int before = cluster.metadataRequests();
            cluster.failNextMetadata(3);
            long start = System.nanoTime();
            assertThat(sizes(c.listTopics())).isEqualTo(Map.of("t", 2, "u", 3));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(cluster.metadataRequests() - before).isEqualTo(4);
            // three failed attempts (UNAVAILABLE, as from a broker that is restarting), each followed by retry.backoff.ms
            // (on whole monotonic milliseconds, so each wait may come up to 1 ms short)
            assertThat(tookMs).isGreaterThanOrEqualTo(146);
        }
    }

    @Test
    void listTopicsTimesOutAfterDefaultApiTimeoutAndWorksAgainAfterwards() {
        try (RaftlineConsumer<String, String> c = consumer(cluster.bootstrap(), "retry.backoff.ms", 20, "default.api.timeout.ms", 400)) {
            int before = cluster.metadataRequests();
            cluster.failNextMetadata(Integer.MAX_VALUE);
            long start = System.nanoTime();
            assertThatThrownBy(c::listTopics).isInstanceOf(TimeoutException.class).hasMessageContaining("listing topics");
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // The deadline is on whole monotonic milliseconds (nanoseconds truncated): the call may end up to 1 ms short of 400.
            assertThat(tookMs).isGreaterThanOrEqualTo(399);
            // retried, not given up after the first failure (how often depends on how fast the failures come back)
            assertThat(cluster.metadataRequests() - before).isGreaterThanOrEqualTo(2);
            cluster.failNextMetadata(0);
            assertThat(sizes(c.listTopics())).isEqualTo(Map.of("t", 2, "u", 3));
        }
    }

    @Test
    void aDeadFirstBootstrapAddressCostsOneAttempt() throws IOException {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            deadPort = s.getLocalPort(); // nothing listens there once the socket is closed
        }
        String bootstrap = "127.0.0.1:" + deadPort + "," + cluster.bootstrap();
        try (RaftlineConsumer<String, String> c = consumer(bootstrap, "retry.backoff.ms", 20)) {
            int before = cluster.metadataRequests();
            assertThat(sizes(c.listTopics())).isEqualTo(Map.of("t", 2, "u", 3));
            assertThat(cluster.metadataRequests() - before).isEqualTo(1);
        }
    }
}
