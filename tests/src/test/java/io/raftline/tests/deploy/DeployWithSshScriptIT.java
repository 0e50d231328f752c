package io.raftline.tests.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plain ssh path, proven on three network-namespace hosts: deploy/scripts/raftline-cluster.sh deploys 3
 * combined nodes from the same inventory as the playbooks, secure ({@code raftline_tls}: the script makes the
 * certificates with the release's {@code raftline certs}, copies them with scp and appends the secure lines; one
 * cluster id, voters then brokers, every broker active), a record produced on one host is consumed on another (as
 * the admin), a rolling restart restarts every node (new pids) and the records are still there, and stop stops them. Only with {@code ./raftline test --system} (the
 * rolling restart takes minutes); it installs nothing: where root, network namespaces, sshd or nftables are
 * missing it skips with one line saying which.
 */
@Tag("system")
@Timeout(900)
class DeployWithSshScriptIT {

    @TempDir
    Path tmp;

    @Test
    void deployRollingRestartAndStopWithTheSshScript() throws Exception {
        Optional<String> missing = NetnsHosts.missingPrerequisite(true);
        if (missing.isPresent()) {
            System.out.println("DeployWithSshScriptIT skipped: " + missing.get());
        }
        Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElse(""));
        Path work = Files.createDirectories(Path.of("/tmp/raftline-deploy-script-" + ProcessHandle.current().pid()));
        try (NetnsHosts hosts = NetnsHosts.start(work, 3)) {
            DeployedCluster cluster = new DeployedCluster(hosts, List.of(1, 2, 3), List.of(1, 2, 3), true);
            long t0 = System.nanoTime();
            NetnsHosts.check(cluster.script("deploy", Duration.ofMinutes(10)), "raftline-cluster.sh deploy");
            step("deploy took " + ms(t0) + " ms");
            assertThat(cluster.brokersIn(2, "active")).containsExactly(1, 2, 3);
            assertThat(cluster.clusterIds()).as("one cluster id on every host").hasSize(1);
            for (int i = 1; i <= 3; i++) {
                Path tls = cluster.root(i).resolve("etc/raftline/tls");
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tls.resolve("rl-n" + i + ".key"))))
                    .isEqualTo("rw-------");
                assertThat(tls.resolve("ca.key")).as("the CA's key stays on the control host").doesNotExist();
                assertThat(Files.readAllLines(cluster.root(i).resolve("etc/raftline/server.properties"))).contains(
                    "super.users=User:rl-n1;User:rl-n2;User:rl-n3;User:admin", "authorizer.enabled=true",
                    "ssl.key.location=" + tls.resolve("rl-n" + i + ".key"), "quorum.listener.security.protocol=SSL");
            }
            NetnsHosts.Result plain = hosts.run(cluster.cliWith(2, Files.writeString(tmp.resolve("plain.properties"),
                "default.api.timeout.ms=5000\n"), "brokers", "list"), Duration.ofSeconds(60), "cli-plaintext");
            assertThat(plain.exitCode()).as("a plaintext client is refused: " + plain).isEqualTo(1);

            NetnsHosts.check(cluster.run(1, Duration.ofSeconds(90), "topics", "create", "--topic", "script",
                "--partitions", "1", "--replication-factor", "3", "--config", "min.insync.replicas=2"), "topics create");
            ProcessBuilder produce = cluster.cli(1, "produce", "--topic", "script", "--acks", "all", "--report-acks");
            produce.redirectInput(Files.writeString(tmp.resolve("in.txt"), "r-1\nr-2\n").toFile());
            NetnsHosts.check(hosts.run(produce, Duration.ofSeconds(90), "produce"), "produce");

            long[] before = {cluster.nodePid(1), cluster.nodePid(2), cluster.nodePid(3)};
            long t1 = System.nanoTime();
            NetnsHosts.check(cluster.script("rolling-restart", Duration.ofMinutes(10)), "raftline-cluster.sh rolling-restart");
            step("rolling restart took " + ms(t1) + " ms");
            for (int i = 1; i <= 3; i++) {
                assertThat(cluster.nodePid(i)).as("rl-n" + i + " was restarted").isNotEqualTo(before[i - 1]);
            }
            NetnsHosts.Result consumed = NetnsHosts.check(cluster.run(3, Duration.ofSeconds(90), "consume", "--topic",
                "script", "--from-beginning", "--max-messages", "2", "--timeout-ms", "30000"), "consume");
            assertThat(consumed.out().lines().toList()).containsExactly("r-1", "r-2");

            NetnsHosts.check(cluster.script("stop", Duration.ofMinutes(5)), "raftline-cluster.sh stop");
            for (int i = 1; i <= 3; i++) {
                assertThat(cluster.root(i).resolve("var/lib/raftline/raftline.pid")).as("rl-n" + i + " stopped")
                    .doesNotExist();
            }
            hosts.passed();
        }
    }

    private static long ms(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }

    private static void step(String what) {
        System.out.println("[DeployWithSshScriptIT] " + what);
    }
}
