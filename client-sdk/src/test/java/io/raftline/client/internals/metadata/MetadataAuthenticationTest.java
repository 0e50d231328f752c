package io.raftline.client.internals.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.raftline.client.errors.SaslAuthenticationException;
import io.raftline.client.internals.net.ConnectionPool;
import io.raftline.client.internals.retry.ExponentialBackoff;
import io.raftline.client.testing.FakeCluster;
import io.raftline.common.ManualTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A refresh refused for its credentials ends the producer's wait for a topic at once, with the listener's words, as
 * Kafka's clients do: retrying cannot fix a password. (It used to retry until max.block.ms and then report a
 * timeout, whose text named the refusal only when the last refresh had come back before the deadline.)
 */
class MetadataAuthenticationTest {

    private static final String REFUSAL = "authentication failed: invalid credentials for user 'alice' with SCRAM-SHA-512";

    @Test
    void aRefusedLoginEndsTheWaitForATopicAtOnce() throws Exception {
        try (FakeCluster cluster = FakeCluster.start(1); ConnectionPool pool = new ConnectionPool("test", 64 << 20)) {
            cluster.createTopic("t", 1);
            cluster.failNextMetadata(1_000, Status.UNAUTHENTICATED.withDescription(REFUSAL));
            ManualTime time = new ManualTime();
            Metadata metadata = new Metadata(Metadata.parseBootstrap(List.of(cluster.bootstrap().split(","))), pool, time,
                ExponentialBackoff.ofClient(100, 1000), () -> 0.5, 300_000, 30_000);
            assertThatThrownBy(() -> metadata.awaitTopic("t", time.hiResMilliseconds() + 60_000))
                .isInstanceOf(SaslAuthenticationException.class).hasMessage(REFUSAL);
            assertThat(cluster.metadataRequests()).as("one refusal is the answer").isEqualTo(1);
        }
    }
}
