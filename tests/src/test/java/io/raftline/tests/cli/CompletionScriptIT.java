package io.raftline.tests.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The distribution carries the bash completion picocli generated from the command tree, and bash can load it. */
@Timeout(120)
class CompletionScriptIT {

    private static Path dist() {
        return Path.of(System.getProperty("raftline.dist", "../deploy/target/raftline-0.1.0-SNAPSHOT")).toAbsolutePath();
    }

    private static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    @Test
    void theDistributionInstallsACompletionScriptForEveryCommand() throws Exception {
        Path script = dist().resolve("share/bash-completion/completions/raftline");
        assertThat(script).isRegularFile();
        String text = Files.readString(script);
        assertThat(text).contains("complete -F").contains("raftline");
        for (String command : new String[] {"topics", "brokers", "quorum", "leader-election", "reassign", "configs", "groups",
            "produce", "consume", "perf", "dev", "storage", "server"}) {
            assertThat(text).as("the script names '%s'", command).contains("(" + command + ")");
        }
        for (String nested : new String[] {"topics create", "topics describe", "perf produce", "groups reset-offsets",
            "configs alter", "quorum add-voter"}) {
            assertThat(text).as("the script names '%s'", nested).contains("(" + nested + ")");
        }
        assertThat(text).contains("--under-replicated-partitions").contains("--election-type").contains("--report-acks");

        // bash loads it and registers the completion function for `raftline`
        String registered = run("bash", "-c", "source '" + script + "' && complete -p raftline");
        assertThat(registered).contains("raftline");

        // and the tarball carries the same file
        Path tarball = dist().resolveSibling(dist().getFileName() + ".tar.gz");
        String listing = run("tar", "tzf", tarball.toString());
        assertThat(listing).contains(dist().getFileName() + "/share/bash-completion/completions/raftline");
    }
}
