package io.raftline.tests.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11's system test: six network-namespace "hosts" with their own sshd; deploy/ansible deploys 3 voters
 * (rl-n1..3) and 3 brokers (rl-n4..6) onto them; records produced on one host are consumed on another; an
 * upgrade to a new tarball (a rolling restart, one node at a time) runs under an acks=all load with no produce
 * error and every node ends on the new release; a broker and then the quorum leader are cut off the network
 * and the cluster keeps serving and heals. Only with {@code ./raftline test --system}; it installs
 * openssh-server, ansible and nftables from Debian's packages and needs root.
 */
@Tag("system")
@Timeout(2400)
class DeployOnHostsIT {

    @TempDir
    Path tmp;

    @Test
    void deployRestartPartitionAndHealOnSixHosts() throws Exception {
        Optional<String> missing = NetnsHosts.missingPrerequisite(true);
        if (missing.isPresent()) {
            System.out.println("DeployOnHostsIT skipped: " + missing.get());
        }
        Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElse(""));
        Path work = Files.createDirectories(Path.of("/tmp/raftline-deploy-it-" + ProcessHandle.current().pid()));
        try (NetnsHosts hosts = NetnsHosts.start(work, 6)) {
            DeployedCluster cluster = new DeployedCluster(hosts, List.of(1, 2, 3), List.of(4, 5, 6));
            step("deploy 3 voters + 3 brokers with site.yml");
            NetnsHosts.check(cluster.playbook("site.yml", Duration.ofMinutes(15)), "site.yml");
            assertThat(cluster.brokersIn(1, "active")).containsExactly(4, 5, 6);

            step("produce on rl-n4, consume on rl-n6");
            NetnsHosts.check(cluster.run(4, Duration.ofSeconds(90), "topics", "create", "--topic", "orders",
                "--partitions", "3", "--replication-factor", "3", "--config", "min.insync.replicas=2"), "topics create");
            ProcessBuilder produce = cluster.cli(4, "produce", "--topic", "orders", "--acks", "all", "--report-acks");
            Path in = Files.writeString(tmp.resolve("orders.txt"), "o-1\no-2\no-3\no-4\no-5\no-6\n");
            produce.redirectInput(in.toFile());
            NetnsHosts.Result produced = NetnsHosts.check(hosts.run(produce, Duration.ofSeconds(90), "produce"), "produce");
            assertThat(produced.out().lines().count()).isEqualTo(6);
            NetnsHosts.Result consumed = NetnsHosts.check(cluster.run(6, Duration.ofSeconds(90), "consume", "--topic",
                "orders", "--from-beginning", "--max-messages", "6", "--timeout-ms", "30000"), "consume");
            assertThat(consumed.out().lines().sorted().toList()).containsExactly("o-1", "o-2", "o-3", "o-4", "o-5", "o-6");

            step("upgrade to a new tarball (rolling restart) under an acks=all load");
            NetnsHosts.check(cluster.run(4, Duration.ofSeconds(90), "topics", "create", "--topic", "load",
                "--partitions", "3", "--replication-factor", "3", "--config", "min.insync.replicas=2"), "topics create");
            Path upgraded = work.resolve("raftline-0.1.0-SNAPSHOT-upgrade.tar.gz");
            Files.copy(cluster.tarball(), upgraded);
            // The load runs from the host's own namespace, a client outside the cluster's hosts.
            ProcessBuilder loadProducer = new ProcessBuilder(List.of(Path.of(cluster.tarball().toString()
                .replace(".tar.gz", "")).resolve("bin/raftline").toString(), "produce", "--topic", "load", "--acks", "all",
                "--report-acks", "--producer-property", "delivery.timeout.ms=120000", "--bootstrap-server",
                cluster.bootstrap()));
            loadProducer.environment().put("RAFTLINE_CLI_OPTS", "-Xmx256m");
            AcksAllLoad.Outcome outcome;
            long restartMs;
            try (AcksAllLoad load = new AcksAllLoad(loadProducer, work.resolve("load.err"), 100, 200_000)) {
                NetnsHosts.await(() -> load.acked() > 200, Duration.ofSeconds(60), "the load to get acks");
                long restartStart = System.nanoTime();
                NetnsHosts.check(cluster.playbook("upgrade.yml", Duration.ofMinutes(20), "-e",
                    "raftline_tarball=" + upgraded), "upgrade.yml");
                restartMs = (System.nanoTime() - restartStart) / 1_000_000;
                outcome = load.finish();
            }
            step("upgrade took " + restartMs + " ms; load sent " + outcome.sent() + ", acked " + outcome.acked().size()
                + ", errors " + outcome.errors().size() + ", exit " + outcome.exitCode());
            assertThat(outcome.errors()).as("produce errors during the rolling restart").isEmpty();
            assertThat(outcome.exitCode()).isZero();
            assertThat(outcome.acked()).hasSize(outcome.sent());
            for (int i = 1; i <= 6; i++) {
                assertThat(cluster.nodeHome(i)).as("rl-n" + i + " runs the new release")
                    .endsWith("/releases/raftline-0.1.0-SNAPSHOT-upgrade");
            }
            NetnsHosts.Result readBack = NetnsHosts.check(cluster.run(5, Duration.ofMinutes(3), "consume", "--topic",
                "load", "--from-beginning", "--max-messages", Integer.toString(outcome.sent()), "--timeout-ms", "30000"),
                "consume load");
            Set<String> stored = new HashSet<>(readBack.out().lines().toList());
            assertThat(stored).as("every acknowledged record is stored").containsAll(outcome.acked());

            step("cut broker rl-n5 off the network");
            hosts.helper(Duration.ofSeconds(30), "partition", "5");
            hosts.helper(Duration.ofSeconds(30), "partition", "5", "host");
            NetnsHosts.await(() -> cluster.brokersIn(4, "fenced").contains(5), Duration.ofSeconds(60), "broker 5 fenced");
            servesAcksAll(cluster, hosts, 4, "cut-broker");
            hosts.helper(Duration.ofSeconds(30), "heal");
            NetnsHosts.await(() -> cluster.brokersIn(4, "active").contains(5), Duration.ofSeconds(120), "broker 5 active");
            NetnsHosts.await(() -> List.of().equals(cluster.notInIsr(4, 5)), Duration.ofSeconds(180),
                "broker 5 back in every ISR");

            step("cut the quorum leader off the network");
            int leader = cluster.quorumLeader(4);
            assertThat(leader).isBetween(1, 3);
            hosts.helper(Duration.ofSeconds(30), "partition", Integer.toString(leader));
            hosts.helper(Duration.ofSeconds(30), "partition", Integer.toString(leader), "host");
            NetnsHosts.await(() -> {
                int now = cluster.quorumLeader(4);
                return now != -1 && now != leader;
            }, Duration.ofSeconds(90), "a new quorum leader");
            step("new quorum leader elected");
            // The brokers find the new active controller within their session (broker.session.timeout.ms=9000 in
            // the deploy templates): they stay active. The wait only bounds the time to observe it.
            NetnsHosts.await(() -> cluster.brokersIn(4, "active").size() == 3, Duration.ofSeconds(60),
                "every broker active under the new controller");
            step("every broker active under the new controller");
            NetnsHosts.check(cluster.run(4, Duration.ofSeconds(90), "topics", "create", "--topic", "after-cut",
                "--partitions", "1", "--replication-factor", "3"), "a metadata change without the old leader");
            servesAcksAll(cluster, hosts, 6, "cut-leader");
            hosts.helper(Duration.ofSeconds(30), "heal");
            NetnsHosts.await(() -> cluster.brokersIn(4, "active").size() == 3, Duration.ofSeconds(120), "all brokers active");
            step("done");
            hosts.passed();
        }
    }

    private static void servesAcksAll(DeployedCluster cluster, NetnsHosts hosts, int host, String name) throws Exception {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 50; i++) {
            lines.append(name).append('-').append(i).append('\n');
        }
        Path in = Files.writeString(hosts.work().resolve(name + ".txt"), lines.toString());
        ProcessBuilder produce = cluster.cli(host, "produce", "--topic", "orders", "--acks", "all", "--report-acks");
        produce.redirectInput(in.toFile());
        NetnsHosts.Result r = NetnsHosts.check(hosts.run(produce, Duration.ofSeconds(150), "produce-" + name),
            "produce while " + name);
        assertThat(r.out().lines().count()).as("acks while " + name).isEqualTo(50);
    }

    private static final long START = System.nanoTime();
    private static long lastStep = START;

    /** Prints the step with the time since the test started and the previous step's duration. */
    private static void step(String what) {
        long now = System.nanoTime();
        System.out.printf("[DeployOnHostsIT] +%ds (previous step %ds) %s%n", (now - START) / 1_000_000_000L,
            (now - lastStep) / 1_000_000_000L, what);
        lastStep = now;
    }
}
