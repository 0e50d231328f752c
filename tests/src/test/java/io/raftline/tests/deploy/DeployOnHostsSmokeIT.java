package io.raftline.tests.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.common.tls.DevCertificates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default run's short version of {@link DeployOnHostsIT}, secure: deploy/ansible deploys 3 combined nodes onto
 * three network-namespace hosts with {@code raftline_tls} (certificates made on the control host by the
 * distribution's {@code raftline certs}, TLS and mTLS on every listener, the authorizer on); the admin's client
 * config produces on one host and consumes on another; a client without TLS, HTTPS without a client certificate and
 * a principal without an ACL are refused, and that principal produces once the ACL of deploy/README.md's producer
 * recipe is added; rotate-certs.yml rotates a node's certificate without restarting it; and
 * deploy/scripts/raftline-cluster.sh, reading the same inventory, reports every node ready over HTTPS and stops them.
 * It installs nothing: where root, network namespaces, sshd, ansible or nftables are missing it skips with one line
 * saying which.
 */
@Timeout(900)
class DeployOnHostsSmokeIT {

    @TempDir
    Path tmp;

    @Test
    void deployThreeSecureCombinedNodesAndProduceAcrossHosts() throws Exception {
        Optional<String> missing = NetnsHosts.missingPrerequisite(true);
        if (missing.isPresent()) {
            System.out.println("DeployOnHostsSmokeIT skipped: " + missing.get());
        }
        Assumptions.assumeTrue(missing.isEmpty(), () -> "skipped: " + missing.orElse(""));
        Path work = Files.createDirectories(Path.of("/tmp/raftline-deploy-smoke-" + ProcessHandle.current().pid()));
        try (NetnsHosts hosts = NetnsHosts.start(work, 3)) {
            DeployedCluster cluster = new DeployedCluster(hosts, List.of(1, 2, 3), List.of(1, 2, 3), true);
            long t0 = System.nanoTime();
            NetnsHosts.Result site = NetnsHosts.check(cluster.playbook("site.yml", Duration.ofMinutes(10)), "site.yml");
            step("site.yml took " + ms(t0) + " ms; its slowest tasks:\n" + slowest(site));
            deployedSecurely(cluster);
            assertThat(cluster.brokersIn(2, "active")).containsExactly(1, 2, 3);
            NetnsHosts.check(cluster.run(1, Duration.ofSeconds(90), "topics", "create", "--topic", "smoke",
                "--partitions", "1", "--replication-factor", "3"), "topics create");
            ProcessBuilder produce = cluster.cli(1, "produce", "--topic", "smoke", "--acks", "all", "--report-acks");
            produce.redirectInput(Files.writeString(tmp.resolve("in.txt"), "s-1\ns-2\n").toFile());
            NetnsHosts.check(hosts.run(produce, Duration.ofSeconds(90), "produce"), "produce");
            NetnsHosts.Result consumed = NetnsHosts.check(cluster.run(3, Duration.ofSeconds(90), "consume", "--topic",
                "smoke", "--from-beginning", "--max-messages", "2", "--timeout-ms", "30000"), "consume");
            assertThat(consumed.out().lines().toList()).containsExactly("s-1", "s-2");

            long t1 = System.nanoTime();
            refusesTheUnauthenticatedAndTheUnauthorized(cluster, hosts);
            step("refusals and the producer's ACL took " + ms(t1) + " ms");
            long t2 = System.nanoTime();
            rotatesACertificateWithoutARestart(cluster);
            step("rotate-certs.yml took " + ms(t2) + " ms");

            // The plain ssh tool reads the same inventory: it sees the nodes Ansible started (its /ready probes are
            // HTTPS with each node's certificate), and stops them.
            NetnsHosts.Result status = NetnsHosts.check(cluster.script("status", Duration.ofMinutes(2)),
                "raftline-cluster.sh status");
            assertThat(status.out().lines().filter(l -> l.endsWith("\tready")).count()).as(status.out()).isEqualTo(3);
            long t3 = System.nanoTime();
            NetnsHosts.check(cluster.script("stop", Duration.ofMinutes(5)), "raftline-cluster.sh stop");
            // the last node stops at once: it has no quorum left and nothing to hand over (it waited 30 s before)
            step("raftline-cluster.sh stop took " + ms(t3) + " ms");
            step("everything took " + ms(t0) + " ms");
            for (int i = 1; i <= 3; i++) {
                assertThat(cluster.root(i).resolve("var/lib/raftline/raftline.pid")).as("rl-n" + i + " stopped")
                    .doesNotExist();
            }
            hosts.passed();
        }
    }

    /** The certificates made on the control host, copied with their modes, and the secure lines in each config. */
    private static void deployedSecurely(DeployedCluster cluster) throws IOException {
        for (String made : List.of("ca.pem", "ca.key", "admin.pem", "admin.key", "rl-n1.pem", "rl-n1.key", "rl-n3.key")) {
            assertThat(cluster.tlsDir().resolve(made)).as("made on the control host").isRegularFile();
        }
        for (int i = 1; i <= 3; i++) {
            Path tls = cluster.root(i).resolve("etc/raftline/tls");
            assertThat(mode(tls.resolve("rl-n" + i + ".key"))).isEqualTo("rw-------");
            assertThat(mode(tls.resolve("admin.key"))).isEqualTo("rw-------");
            assertThat(mode(tls.resolve("rl-n" + i + ".pem"))).isEqualTo("rw-r--r--");
            assertThat(mode(tls.resolve("ca.pem"))).isEqualTo("rw-r--r--");
            assertThat(tls.resolve("ca.key")).as("the CA's key stays on the control host").doesNotExist();
            assertThat(DeployedCluster.firstCertificate(tls.resolve("rl-n" + i + ".pem")).getSubjectX500Principal()
                .getName()).isEqualTo("CN=rl-n" + i);
            List<String> config = Files.readAllLines(cluster.root(i).resolve("etc/raftline/server.properties"));
            assertThat(config).contains("super.users=User:rl-n1;User:rl-n2;User:rl-n3;User:admin",
                "ssl.certificate.location=" + tls.resolve("rl-n" + i + ".pem"), "ssl.client.auth=required",
                "broker.listener.security.protocol=SSL", "authorizer.enabled=true");
        }
    }

    private static String mode(Path file) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
    }

    private static void refusesTheUnauthenticatedAndTheUnauthorized(DeployedCluster cluster, NetnsHosts hosts)
        throws Exception {
        // A plaintext client (no TLS, no certificate: as without --command-config, only with a 3 s API timeout instead
        // of the CLI's 30 s), refused with exit 1 and one error line.
        Path plainConfig = Files.writeString(hosts.work().resolve("plain-client.properties"),
            "security.protocol=PLAINTEXT\ndefault.api.timeout.ms=3000\n");
        NetnsHosts.Result plain = hosts.run(cluster.cliWith(2, plainConfig, "topics", "list"), Duration.ofSeconds(90),
            "cli-plaintext");
        assertThat(plain.exitCode()).as(plain.toString()).isEqualTo(1);
        assertThat(plain.err().lines()).as(plain.toString()).anyMatch(l -> l.startsWith("error: "));
        // /ready over HTTPS: refused without a client certificate (ssl.client.auth=required), 200 with the admin's.
        assertThatThrownBy(() -> cluster.https(2, "/ready", cluster.sslContext(null))).isInstanceOf(IOException.class);
        assertThat(cluster.https(2, "/ready", cluster.sslContext("admin"))).isEqualTo(200);
        // A principal the CA vouches for but no ACL names: refused by the authorizer until the producer recipe's ACL.
        DevCertificates.loadCa(cluster.tlsDir()).issue("app", List.of(), List.of(), cluster.tlsDir(), Instant.now(),
            Duration.ofDays(1));
        Path app = Files.writeString(hosts.work().resolve("app-client.properties"), cluster.clientConfig("app"));
        Path in = Files.writeString(hosts.work().resolve("app.txt"), "a-1\n");
        ProcessBuilder refused = cluster.cliWith(1, app, "produce", "--topic", "smoke", "--report-acks");
        refused.redirectInput(in.toFile());
        NetnsHosts.Result denied = hosts.run(refused, Duration.ofSeconds(90), "produce-unauthorized");
        assertThat(denied.exitCode()).as(denied.toString()).isEqualTo(1);
        assertThat(denied.err()).as(denied.toString()).contains("error: ").containsIgnoringCase("not authorized");
        NetnsHosts.check(cluster.run(1, Duration.ofSeconds(60), "acls", "add", "--allow-principal", "User:app",
            "--operation", "write", "--topic", "smoke"), "acls add");
        ProcessBuilder allowed = cluster.cliWith(1, app, "produce", "--topic", "smoke", "--report-acks");
        allowed.redirectInput(in.toFile());
        NetnsHosts.Result produced = NetnsHosts.check(hosts.run(allowed, Duration.ofSeconds(90), "produce-app"),
            "produce as User:app with its ACL");
        assertThat(produced.out().lines().toList()).hasSize(1).allMatch(l -> l.endsWith("\ta-1"));
    }

    /** A new certificate for rl-n2 on the control host; rotate-certs.yml on it: rl-n2 presents it, with the same pid. */
    private static void rotatesACertificateWithoutARestart(DeployedCluster cluster) throws Exception {
        long pid = cluster.nodePid(2);
        X509Certificate before = cluster.presented(2);
        DevCertificates.loadCa(cluster.tlsDir()).issue("rl-n2", List.of("rl-n2"), List.of(NetnsHosts.ip(2)),
            cluster.tlsDir(), Instant.now(), Duration.ofDays(30));
        X509Certificate issued = DeployedCluster.firstCertificate(cluster.tlsDir().resolve("rl-n2.pem"));
        assertThat(issued.getSerialNumber()).isNotEqualTo(before.getSerialNumber());
        // --limit: an operator rotating one node's certificate (the full play's copying is site.yml's, above).
        NetnsHosts.Result rotated = NetnsHosts.check(cluster.playbook("rotate-certs.yml", Duration.ofMinutes(5), "--limit",
            "rl-n2"), "rotate-certs.yml");
        step("rotate-certs.yml's slowest tasks:\n" + slowest(rotated));
        assertThat(cluster.presented(2).getSerialNumber()).as("rl-n2 presents the new certificate")
            .isEqualTo(issued.getSerialNumber());
        assertThat(cluster.nodePid(2)).as("rl-n2 was not restarted").isEqualTo(pid);
        assertThat(cluster.brokersIn(1, "active")).containsExactly(1, 2, 3);
    }

    /** The first lines of the per-task timings (profile_tasks) that close a playbook's output, slowest first. */
    private static String slowest(NetnsHosts.Result playbook) {
        List<String> lines = playbook.out().lines().toList();
        int at = lines.size();
        while (at > 0 && !lines.get(at - 1).startsWith("=====")) {
            at--;
        }
        return String.join("\n", lines.subList(at, Math.min(lines.size(), at + 8)));
    }

    private static long ms(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }

    private static void step(String what) {
        System.out.println("[DeployOnHostsSmokeIT] " + what);
    }
}
