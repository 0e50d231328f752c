package io.raftline.tests.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default run's short version of {@link DeployOnHostsIT}: deploy/ansible deploys 3 combined nodes onto
 * three network-namespace hosts, a record produced on one host is consumed on another, and
 * deploy/scripts/raftline-cluster.sh, reading the same inventory, reports every node ready and stops them. It installs nothing: where root, network namespaces, sshd, ansible or nftables are missing it skips
 * with one line saying which.
 */
@Timeout(900)
class DeployOnHostsSmokeIT {

    @TempDir
    Path tmp;

    @Test
    void deployThreeCombinedNodesAndProduceAcrossHosts() throws Exception {
        Optional<String> missing = NetnsHosts.missingPrerequisite(true);
        if (missing.isPresent()) {
            System.out.println("DeployOnHostsSmokeIT skipped: " + missing.get());
        }
        Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElse(""));
        Path work = Files.createDirectories(Path.of("/tmp/raftline-deploy-smoke-" + ProcessHandle.current().pid()));
        try (NetnsHosts hosts = NetnsHosts.start(work, 3)) {
            DeployedCluster cluster = new DeployedCluster(hosts, List.of(1, 2, 3), List.of(1, 2, 3));
            long t0 = System.nanoTime();
            NetnsHosts.check(cluster.playbook("site.yml", Duration.ofMinutes(10)), "site.yml");
            System.out.println("[DeployOnHostsSmokeIT] site.yml took " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            assertThat(cluster.brokersIn(2, "active")).containsExactly(1, 2, 3);
            NetnsHosts.check(cluster.run(1, Duration.ofSeconds(90), "topics", "create", "--topic", "smoke",
                "--partitions", "1", "--replication-factor", "3"), "topics create");
            ProcessBuilder produce = cluster.cli(1, "produce", "--topic", "smoke", "--acks", "all", "--report-acks");
            produce.redirectInput(Files.writeString(tmp.resolve("in.txt"), "s-1\ns-2\n").toFile());
            NetnsHosts.check(hosts.run(produce, Duration.ofSeconds(90), "produce"), "produce");
            NetnsHosts.Result consumed = NetnsHosts.check(cluster.run(3, Duration.ofSeconds(90), "consume", "--topic",
                "smoke", "--from-beginning", "--max-messages", "2", "--timeout-ms", "30000"), "consume");
            assertThat(consumed.out().lines().toList()).containsExactly("s-1", "s-2");
            // The plain ssh tool reads the same inventory: it sees the nodes Ansible started, and stops them.
            NetnsHosts.Result status = NetnsHosts.check(cluster.script("status", Duration.ofMinutes(2)),
                "raftline-cluster.sh status");
            assertThat(status.out().lines().filter(l -> l.endsWith("\tready")).count()).as(status.out()).isEqualTo(3);
            NetnsHosts.check(cluster.script("stop", Duration.ofMinutes(5)), "raftline-cluster.sh stop");
            System.out.println("[DeployOnHostsSmokeIT] everything took " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            for (int i = 1; i <= 3; i++) {
                assertThat(cluster.root(i).resolve("var/lib/raftline/raftline.pid")).as("rl-n" + i + " stopped")
                    .doesNotExist();
            }
            hosts.passed();
        }
    }
}
