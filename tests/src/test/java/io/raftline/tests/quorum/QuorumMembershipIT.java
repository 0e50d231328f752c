package io.raftline.tests.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Quorum membership through the command line against real node processes: `quorum remove-voter` turns a voter into
 * an observer, `quorum add-voter` makes it a voter again, and metadata writes go on throughout.
 */
@Timeout(300)
class QuorumMembershipIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static TestCluster cluster;
    private static Cli cli;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).start();
        cli = new Cli(cluster.bootstrap());
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static List<Integer> voters() {
        return members("voters", false);
    }

    /** The ids in one list of `quorum status` ("voters" or "listeners"); with caughtUp, only those lagging by 0. */
    private static List<Integer> members(String list, boolean caughtUp) {
        Cli.Result r = cli.run("quorum", "status", "--output", "json");
        if (r.exitCode() != 0) {
            return List.of();
        }
        try {
            JsonNode doc = JSON.readTree(r.out());
            List<Integer> ids = new ArrayList<>();
            doc.get(list).forEach(v -> {
                if (!caughtUp || v.get("lagEntries").asLong() == 0) {
                    ids.add(v.get("id").asInt());
                }
            });
            return ids;
        } catch (Exception e) {
            return List.of();
        }
    }

    @Test
    void removeAndAddAVoterFromTheCli() {
        assertThat(voters()).containsExactlyInAnyOrder(1, 2, 3);
        Cli.Result status = cli.run("quorum", "status", "--output", "json");
        int leader;
        try {
            leader = JSON.readTree(status.out()).get("leaderId").asInt();
        } catch (Exception e) {
            throw new AssertionError(status.toString(), e);
        }
        int victim = leader == 3 ? 2 : 3;

        Cli.Result removed = cli.run("quorum", "remove-voter", "--id", Integer.toString(victim), "--output", "json");
        assertThat(removed.exitCode()).as(removed.toString()).isZero();
        assertThat(removed.out()).contains("\"observer\":true");
        TestCluster.await(() -> !voters().contains(victim) && voters().size() == 2, Duration.ofSeconds(30),
            "voter " + victim + " to leave the voters");
        Cli.Result create = cli.run("topics", "create", "--topic", "during-membership", "--partitions", "1");
        assertThat(create.exitCode()).as(create.toString()).isZero();
        // A removed voter goes on as an observer that receives the metadata written since (Ratis closes a server
        // that is in no list of the configuration, which then could not be added back without a restart).
        TestCluster.await(() -> members("listeners", true).contains(victim), Duration.ofSeconds(30),
            "node " + victim + " to follow the metadata as an observer");

        Cli.Result added = cli.run("quorum", "add-voter", "--id", Integer.toString(victim), "--endpoint",
            "127.0.0.1:" + cluster.node(victim).quorumPort(), "--output", "json");
        assertThat(added.exitCode()).as(added.toString()).isZero();
        TestCluster.await(() -> voters().size() == 3, Duration.ofSeconds(30), "voter " + victim + " to rejoin");

        Cli.Result bad = cli.run("quorum", "add-voter", "--id", "9", "--endpoint", "nonsense");
        assertThat(bad.exitCode()).isEqualTo(1);
        assertThat(bad.err()).startsWith("error: ");
    }
}
