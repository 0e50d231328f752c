package io.raftline.tests.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * raftline.service as the deploy tooling installs it (its paths replaced by a host's, the release installed
 * under them) passes {@code systemd-analyze verify}; and the process manager the namespace tests use,
 * raftline-node.sh, runs the node with the unit's ExecStart command line and environment file, and the unit
 * stops it with that script's controlled stop; and every document its {@code Documentation=} names is in the release.
 */
class SystemdUnitTest {

    @TempDir
    Path root;

    private static Path dist() {
        return Path.of(System.getProperty("raftline.dist", NetnsHosts.repoRoot() + "/deploy/target/raftline-0.1.0-SNAPSHOT"))
            .toAbsolutePath().normalize();
    }

    private static String unit() throws Exception {
        return Files.readString(NetnsHosts.repoRoot().resolve("deploy/src/dist/systemd/raftline.service"));
    }

    @Test
    void theInstalledUnitVerifies() throws Exception {
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        if (!Files.isExecutable(analyze)) {
            System.out.println("SystemdUnitTest.theInstalledUnitVerifies skipped: no /usr/bin/systemd-analyze");
        }
        Assumptions.assumeTrue(Files.isExecutable(analyze), "no systemd-analyze");
        Path dist = dist();
        Assumptions.assumeTrue(Files.isExecutable(dist.resolve("bin/raftline")), "no unpacked distribution at " + dist);
        // What deploy/ansible/roles/raftline_install and raftline-cluster.sh do: the host's paths, the release as current.
        Path install = Files.createDirectories(root.resolve("opt/raftline"));
        Files.createSymbolicLink(install.resolve("current"), dist);
        for (String dir : List.of("etc/raftline", "var/lib/raftline", "var/log/raftline")) {
            Files.createDirectories(root.resolve(dir));
        }
        Files.copy(dist.resolve("systemd/raftline.env"), root.resolve("etc/raftline/raftline.env"));
        String installed = unit()
            .replace("/opt/raftline", install.toString())
            .replace("/etc/raftline", root.resolve("etc/raftline").toString())
            .replace("/var/lib/raftline", root.resolve("var/lib/raftline").toString())
            .replace("/var/log/raftline", root.resolve("var/log/raftline").toString())
            .replaceAll("(?m)^User=.*$", "User=root")
            .replaceAll("(?m)^Group=.*$", "Group=root");
        Path file = Files.writeString(root.resolve("raftline.service"), installed);
        NetnsHosts.Result r = NetnsHosts.exec(Duration.ofSeconds(60), List.of(analyze.toString(), "verify", file.toString()), null);
        assertThat(r.exitCode()).as("systemd-analyze verify: " + r).isZero();
        assertThat(r.err().strip()).as("systemd-analyze verify warnings").isEmpty();
    }

    @Test
    void theScriptRunsWhatTheUnitRuns() throws Exception {
        String unit = unit();
        assertThat(unit).contains("ExecStart=/opt/raftline/current/bin/raftline server --config /etc/raftline/server.properties")
            .contains("EnvironmentFile=/etc/raftline/raftline.env")
            .contains("ExecStop=/bin/sh /opt/raftline/current/systemd/raftline-node.sh stop-pid $MAINPID ")
            .contains("LimitNOFILE=")
            .contains("Restart=on-failure");
        String script = Files.readString(NetnsHosts.repoRoot().resolve("deploy/src/dist/systemd/raftline-node.sh"));
        // The same command line (bin/raftline of the release, server --config CONFIG) and the same env file, sourced.
        assertThat(script).contains("\"$home/bin/raftline\" server --config \"$config\"").contains(". \"$env_file\"");
    }

    @Test
    void theDocumentationItNamesIsInTheRelease() throws Exception {
        String line = unit().lines().filter(l -> l.startsWith("Documentation=")).findFirst().orElseThrow();
        List<String> uris = Arrays.asList(line.substring("Documentation=".length()).trim().split("\\s+"));
        assertThat(uris).isNotEmpty().allSatisfy(uri -> assertThat(uri).startsWith("file:/opt/raftline/current/"));
        Path dist = dist();
        Assumptions.assumeTrue(Files.isExecutable(dist.resolve("bin/raftline")), "no unpacked distribution at " + dist);
        for (String uri : uris) {
            Path doc = dist.resolve(uri.substring("file:/opt/raftline/current/".length()));
            assertThat(doc).as(uri + " in the release").isRegularFile();
            assertThat(Files.readString(doc)).as(uri).startsWith("# ");
        }
    }
}
