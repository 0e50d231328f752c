package io.raftline.tests.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution end to end, as a user runs it: {@code bin/raftline dev --nodes 1} as a real process, then
 * {@code bin/raftline topics create}, {@code produce --report-acks} fed on stdin and {@code consume --from-beginning}
 * as real processes over real sockets, then SIGTERM stops the cluster cleanly.
 */
@Timeout(300)
class DistributionIT {

    @TempDir
    Path tmp;

    private static Path raftline() {
        Path dist = Path.of(System.getProperty("raftline.dist", "../deploy/target/raftline-0.1.0-SNAPSHOT"));
        return dist.resolve("bin/raftline").toAbsolutePath();
    }

    private record Run(int code, String out, String err) {
    }

    private Run run(String stdin, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(raftline().toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Path err = Files.createTempFile(tmp, "err", ".txt");
        pb.redirectError(err.toFile());
        Process p = pb.start();
        p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("raftline " + String.join(" ", args) + " finished").isTrue();
        return new Run(p.exitValue(), out, Files.readString(err));
    }

    @Test
    void devClusterTakesRecordsAndHandsThemBack() throws Exception {
        Run version = run("", "--version");
        assertThat(version.out()).startsWith("raftline ");
        Run uuid = run("", "storage", "random-uuid");
        assertThat(uuid.out().strip()).hasSize(22);

        int basePort = 20000 + (int) (ProcessHandle.current().pid() % 2000) * 10;
        Path dir = tmp.resolve("dev");
        ProcessBuilder pb = new ProcessBuilder(raftline().toString(), "dev", "--nodes", "1", "--dir", dir.toString(),
            "--base-port", Integer.toString(basePort));
        pb.environment().put("RAFTLINE_HEAP_OPTS", "-Xmx256m");
        pb.redirectError(tmp.resolve("dev.err").toFile());
        Process dev = pb.start();
        try {
            BufferedReader devOut = new BufferedReader(new InputStreamReader(dev.getInputStream(), StandardCharsets.UTF_8));
            String bootstrap = devOut.readLine();
            assertThat(bootstrap).as("dev's stdout line; stderr: %s", Files.readString(tmp.resolve("dev.err")))
                .isEqualTo("127.0.0.1:" + basePort);
            JsonNode cluster = new ObjectMapper().readTree(dir.resolve("cluster.json").toFile());
            assertThat(cluster.get("bootstrap").asText()).isEqualTo(bootstrap);
            assertThat(cluster.get("nodes").get(0).get("pid").asLong()).isPositive();

            String b = "--bootstrap-server=" + bootstrap;
            Run create = run("", "topics", "create", "--topic", "tour", "--partitions", "1", "--replication-factor", "1", b);
            assertThat(create.code()).as(create.err()).isZero();
            Run produce = run("one\ntwo\nthree\n", "produce", "--topic", "tour", "--report-acks", b);
            assertThat(produce.code()).as(produce.err()).isZero();
            assertThat(produce.out()).isEqualTo("0\t0\tone\n0\t1\ttwo\n0\t2\tthree\n");
            Run consume = run("", "consume", "--topic", "tour", "--from-beginning", "--max-messages", "3", b);
            assertThat(consume.code()).as(consume.err()).isZero();
            assertThat(consume.out()).isEqualTo("one\ntwo\nthree\n");
            assertThat(consume.err()).contains("Processed a total of 3 messages");
        } finally {
            dev.destroy();
            boolean exited = dev.waitFor(30, TimeUnit.SECONDS);
            if (!exited) {
                dev.destroyForcibly();
            }
            assertThat(exited).as("dev stops within 30 s of SIGTERM").isTrue();
        }
        assertThat(dev.exitValue()).isZero();
    }
}
