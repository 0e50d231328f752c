package io.raftline.client.internals.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.internals.net.ConnectionPool;
import io.raftline.client.internals.retry.ExponentialBackoff;
import io.raftline.client.testing.FakeCluster;
import io.raftline.common.ManualTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A refresh asked for because a broker reported stale leadership goes to another broker than the previous refresh:
 * the broker asked before may be the deposed leader, cut off from the controller, answering its own stale view (the
 * fault campaign's cut-off leader kept its clients until the cut healed that way). Refreshes that are only due by age
 * stay on the same broker.
 */
class MetadataRotationTest {

    @Test
    void aRefreshForStaleLeadershipAsksTheNextBroker() throws Exception {
        try (FakeCluster cluster = FakeCluster.start(3); ConnectionPool pool = new ConnectionPool("test", 64 << 20)) {
            cluster.createTopic("t", 1);
            Metadata metadata = new Metadata(Metadata.parseBootstrap(List.of(cluster.bootstrap().split(","))), pool, new ManualTime(),
                ExponentialBackoff.ofClient(100, 1000), () -> 0.5, 300_000, 30_000);
            metadata.addTopics(List.of("t"));
            metadata.refresh().get(10, TimeUnit.SECONDS);
            metadata.refresh().get(10, TimeUnit.SECONDS);
            int first = answeredBy(cluster);
            assertThat(cluster.metadataAnsweredBy(first)).as("refreshes by age stay on one broker").isEqualTo(2);
            metadata.requestUpdate();
            metadata.refresh().get(10, TimeUnit.SECONDS);
            assertThat(cluster.metadataAnsweredBy(first)).as("the refresh for stale leadership went elsewhere").isEqualTo(2);
            metadata.requestUpdate();
            metadata.refresh().get(10, TimeUnit.SECONDS);
            metadata.requestUpdate();
            metadata.refresh().get(10, TimeUnit.SECONDS);
            for (int id = 1; id <= 3; id++) {
                assertThat(cluster.metadataAnsweredBy(id)).as("broker " + id).isPositive();
            }
        }
    }

    private static int answeredBy(FakeCluster cluster) {
        for (int id = 1; id <= 3; id++) {
            if (cluster.metadataAnsweredBy(id) > 0) {
                return id;
            }
        }
        throw new AssertionError("no broker answered");
    }
}
