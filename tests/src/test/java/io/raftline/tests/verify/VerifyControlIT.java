package io.raftline.tests.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.BrokerDescription;
import io.raftline.client.admin.ReplicaLogInfo;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The control run of issue 19: a fault that does lose acknowledged records must be seen by the checker. Followers
 * fetch at most every 2 s (replica.fetch.wait.max.ms with a large replica.fetch.min.bytes) and unclean election is
 * on; a partition leader is frozen (SIGSTOP) past the broker session timeout, so the controller fences it and elects
 * a follower, then the old leader resumes and truncates to the new leader's log. The acks=1 records it acknowledged
 * in its last fetch window are gone, and {@code raftline verify} must report them (as {@code acks1.lost}, which
 * never fails a run since acks=1 is documented as lossy) while the acks=all producers of the same run lose nothing.
 */
@Timeout(600)
class VerifyControlIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static TestCluster cluster;
    private static Cli cli;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).config("replica.fetch.wait.max.ms", "2000")
            .config("replica.fetch.min.bytes", "1048576").config("unclean.leader.election.enable", "true").start();
        cli = new Cli(cluster.bootstrap());
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static long leaderLogEnd(TopicPartition tp) throws Exception {
        Map<TopicPartition, ReplicaLogInfo> leaders = cluster.admin().describeLogs(null, Duration.ofSeconds(5)).leaderLogs()
            .get(30, TimeUnit.SECONDS);
        ReplicaLogInfo info = leaders.get(tp);
        return info == null ? -1 : info.logEndOffset();
    }

    /** The broker's state as the other brokers report it (the frozen one answers nothing). */
    private static String state(Admin others, int broker) throws Exception {
        for (BrokerDescription b : others.describeBrokers().get(5, TimeUnit.SECONDS)) {
            if (b.id() == broker) {
                return b.state();
            }
        }
        return "unknown";
    }

    @Test
    void aFrozenLeaderLosesAcks1RecordsAndTheCheckerReportsThem() throws Exception {
        Path dir = Path.of("target", "verify", "control");
        Files.createDirectories(dir);
        CompletableFuture<Cli.Result> run = CompletableFuture.supplyAsync(() -> cli.run("verify", "--duration", "15s",
            "--acks1-producer", "--output", "json", "--report-dir", dir.toString()));

        String topic = VerifyTopics.awaitFirst(cluster);
        TopicPartition tp = new TopicPartition(topic, 0);
        TestCluster.await(() -> {
            try {
                return leaderLogEnd(tp) > 200;
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(60), "records in " + tp);
        TopicPartitionInfo p0 = cluster.admin().describeTopics(List.of(topic)).allTopicNames().get().get(topic)
            .partitions().get(0);
        TestNode victim = cluster.node(p0.leader().id());

        victim.pause();
        try (Admin admin = cluster.adminAvoiding(victim.id())) {
            TestCluster.await(() -> {
                try {
                    return state(admin, victim.id()).equals("fenced");
                } catch (Exception e) {
                    return false;
                }
            }, Duration.ofSeconds(60), "broker " + victim.id() + " to be fenced");
        } finally {
            victim.resume();
        }

        Cli.Result r = run.get(300, TimeUnit.SECONDS);
        assertThat(r.exitCode()).as(r.toString()).isZero();
        JsonNode doc = JSON.readTree(r.out());
        assertThat(doc.get("anomalies").get("lost").asLong()).as("acks=all records lost: " + r).isZero();
        assertThat(doc.get("acks1").get("lost").asLong()).as("acks=1 records the checker saw lost: " + r).isPositive();
        System.out.println("control run, leader " + victim.id() + " frozen: acks1 " + doc.get("acks1") + "; " + r.out());
    }
}
