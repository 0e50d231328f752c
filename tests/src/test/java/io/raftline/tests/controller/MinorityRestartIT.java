package io.raftline.tests.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewTopic;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 20, defect 2, with real processes: a broker restarted where it cannot reach a quorum majority must not count
 * itself caught up with the metadata. Before the fix its catch-up gate compared the image with the commit index of
 * the quorum node it streamed from, its own stale one here, so it applied a stale image at once (deleting as "stray"
 * the logs of topics it had not heard of, taking leaderships at superseded epochs). Now the gate waits for a
 * linearizable read point (Ratis ReadIndex through the leader), which a minority cannot give.
 *
 * <p>Then the cluster is stopped one node after the other, as {@code raftline-cluster.sh stop} and a rolling stop do:
 * the last node has no quorum left and no other broker to hand anything to, and must stop at once instead of waiting
 * {@code controlled.shutdown.timeout.ms} (set to ten minutes here) for a controller that cannot answer.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MinorityRestartIT {

    private static final String CAUGHT_UP = "caught up with the metadata";
    private static final String WAITING = "no linearizable metadata read point";

    private static TestCluster cluster;

    @BeforeAll
    static void start() {
        // Snapshots every few entries: a restarted node's Ratis commit index is its snapshot index until it hears
        // from a leader (without a snapshot it is 0, which the old gate happened to refuse).
        cluster = TestCluster.builder().combined(3).config("metadata.snapshot.records", "10")
            .config("controlled.shutdown.timeout.ms", "600000").start();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static long count(TestNode node, String text) {
        try {
            return Files.readAllLines(node.logFile()).stream().filter(l -> l.contains(text)).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    @Order(1)
    void aBrokerRestartedInAMinorityWaitsForTheMajority() throws Exception {
        Admin admin = cluster.admin();
        TestNode lone = cluster.node(3);
        for (int i = 0; i < 12; i++) {
            admin.createTopics(List.of(new NewTopic("before-" + i, 1, (short) 3))).all().get(60, TimeUnit.SECONDS);
        }
        lone.stop(Duration.ofSeconds(30));
        admin.createTopics(List.of(new NewTopic("created-while-down", 1, (short) 2))).all().get(60, TimeUnit.SECONDS);
        long caughtUpBefore = count(lone, CAUGHT_UP);

        cluster.node(1).pause();
        cluster.node(2).pause();
        try {
            lone.start();
            TestCluster.await(() -> count(lone, WAITING) > 0 || count(lone, CAUGHT_UP) > caughtUpBefore,
                Duration.ofSeconds(60), "node 3 to decide whether it has caught up");
            assertThat(count(lone, CAUGHT_UP)).as("node 3 counted itself caught up without a quorum majority")
                .isEqualTo(caughtUpBefore);
        } finally {
            cluster.node(1).resume();
            cluster.node(2).resume();
        }
        TestCluster.await(() -> count(lone, CAUGHT_UP) > caughtUpBefore, Duration.ofSeconds(60),
            "node 3 to catch up once the majority is back");
        cluster.awaitReady(Duration.ofSeconds(60));
    }

    @Test
    @Order(2)
    void theLastNodeStoppedStopsWithoutWaitingForAQuorum() throws Exception {
        cluster.admin().createTopics(List.of(new NewTopic("led-by-the-last", 3, (short) 3))).all()
            .get(60, TimeUnit.SECONDS);
        cluster.node(1).stop(Duration.ofSeconds(60));
        cluster.node(2).stop(Duration.ofSeconds(60));
        TestNode last = cluster.node(3);
        // before: the broker waited the whole controlled.shutdown.timeout.ms (10 min) for the controller's answer
        last.stop(Duration.ofSeconds(60));
        assertThat(count(last, "controlled shutdown did not finish")).isZero();
        assertThat(count(last, "nothing to hand over")).as("node 3 said why it did not wait").isPositive();
    }
}
