package io.raftline.tests.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.tests.cluster.TestCluster;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution end to end, as a user runs it: {@code bin/raftline dev --nodes 1} as a real process, then
 * {@code bin/raftline topics create}, {@code produce --report-acks} fed on stdin and {@code consume --from-beginning}
 * as real processes over real sockets, then SIGTERM stops the cluster cleanly. And the tarball carries the project's
 * README, LICENSE (Apache License 2.0) and NOTICE, whose list of bundled jars is exactly lib/'s third-party jars.
 */
@Timeout(300)
class DistributionIT {

    @TempDir
    Path tmp;

    private static Path raftline() {
        Path dist = Path.of(System.getProperty("raftline.dist", "../deploy/target/raftline-0.1.0-SNAPSHOT"));
        return dist.resolve("bin/raftline").toAbsolutePath();
    }

    private static Path distDir() {
        return Path.of(System.getProperty("raftline.dist", "../deploy/target/raftline-0.1.0-SNAPSHOT")).toAbsolutePath()
            .normalize();
    }

    /**
     * A dev cluster's first port, spread by this JVM's pid, and kept below Linux's ephemeral range (32768 and up):
     * there a port the suite's own connections used a moment ago (in TIME_WAIT) cannot be bound, and a run failed on
     * 32900 with "port 32914 is already in use".
     */
    private static int basePort(int test) {
        return 20000 + (int) ((ProcessHandle.current().pid() + test) % 1200) * 10;
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

        int basePort = basePort(0);
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
            String console = cluster.get("nodes").get(0).get("console").asText();
            assertThat(console).isEqualTo("http://127.0.0.1:" + (basePort + 3) + "/ui/");
            TestCluster.await(() -> {
                try {
                    return Files.readString(tmp.resolve("dev.err")).contains("web console of node 1: " + console);
                } catch (IOException e) {
                    return false;
                }
            }, Duration.ofSeconds(10), "dev to print the console address on stderr");
            HttpURLConnection page = (HttpURLConnection) URI.create(console).toURL().openConnection();
            assertThat(page.getResponseCode()).isEqualTo(200);
            try (var in = page.getInputStream()) {
                assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).contains("Raftline console");
            }

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

            // raftline verify from the distribution against the dev cluster: a checked run, its verdict and its report.
            Path reportDir = tmp.resolve("verify-report");
            Run verify = run("", "verify", "--duration", "5s", "--rate", "500", "--output", "json", "--report-dir",
                reportDir.toString(), b);
            assertThat(verify.code()).as(verify.err()).isZero();
            JsonNode verdict = new ObjectMapper().readTree(verify.out());
            assertThat(verdict.get("acked").asLong()).as(verify.out()).isPositive();
            verdict.get("anomalies").fields().forEachRemaining(a -> assertThat(a.getValue().asLong()).as(a.getKey()).isZero());
            assertThat(Files.readString(reportDir.resolve("report.md"))).contains("no safety anomaly found");
            assertThat(reportDir.resolve("acks.png")).isNotEmptyFile();

            // The Kafka listener at P+4, listed in cluster.json, hands the same records to Kafka's own consumer.
            String kafkaBootstrap = "127.0.0.1:" + (basePort + 4);
            assertThat(cluster.get("kafkaBootstrap").asText()).isEqualTo(kafkaBootstrap);
            assertThat(cluster.get("nodes").get(0).get("kafka").asText()).isEqualTo(kafkaBootstrap);
            Properties kafka = new Properties();
            kafka.setProperty("bootstrap.servers", kafkaBootstrap);
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(kafka, new StringDeserializer(),
                new StringDeserializer())) {
                TopicPartition tp = new TopicPartition("tour", 0);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                List<String> values = new ArrayList<>();
                TestCluster.await(() -> {
                    consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.offset() + ":" + r.value()));
                    return values.size() >= 3;
                }, Duration.ofSeconds(60), "3 records through the Kafka listener");
                assertThat(values).containsExactly("0:one", "1:two", "2:three");
            }
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

    /**
     * {@code raftline dev --tls}: TLS and mTLS on every listener; cluster.json names the admin's client config, with
     * which the CLI works, while the same command without it is refused; {@code certs issue --ca-dir DIR/tls} adds
     * a client certificate the cluster accepts, and whose principal may read once {@code acls add} lets it (the
     * authorizer is on).
     */
    @Test
    void devWithTlsTakesRecordsOnlyOverTls() throws Exception {
        int basePort = basePort(1);
        Path dir = tmp.resolve("dev-tls");
        ProcessBuilder pb = new ProcessBuilder(raftline().toString(), "dev", "--tls", "--nodes", "1", "--dir", dir.toString(),
            "--base-port", Integer.toString(basePort));
        pb.environment().put("RAFTLINE_HEAP_OPTS", "-Xmx256m");
        pb.redirectError(tmp.resolve("dev-tls.err").toFile());
        Process dev = pb.start();
        try {
            BufferedReader devOut = new BufferedReader(new InputStreamReader(dev.getInputStream(), StandardCharsets.UTF_8));
            String bootstrap = devOut.readLine();
            assertThat(bootstrap).as("dev's stdout line; stderr: %s", Files.readString(tmp.resolve("dev-tls.err")))
                .isEqualTo("127.0.0.1:" + basePort);
            JsonNode cluster = new ObjectMapper().readTree(dir.resolve("cluster.json").toFile());
            assertThat(cluster.get("tls").asBoolean()).isTrue();
            String config = cluster.get("clientConfig").asText();
            assertThat(Path.of(config)).isEqualTo(dir.toAbsolutePath().resolve("client.properties"));

            String b = "--bootstrap-server=" + bootstrap;
            Run create = run("", "topics", "create", "--topic", "secure", "--partitions", "1", "--replication-factor", "1", b,
                "--command-config", config);
            assertThat(create.code()).as(create.err()).isZero();
            Run produce = run("one\ntwo\n", "produce", "--topic", "secure", b, "--command-config", config);
            assertThat(produce.code()).as(produce.err()).isZero();

            Path plain = tmp.resolve("plain.properties");
            Files.writeString(plain, "default.api.timeout.ms=5000\n");
            Run refused = run("", "topics", "list", b, "--command-config", plain.toString());
            assertThat(refused.code()).as(refused.err()).isEqualTo(1);
            assertThat(refused.err()).startsWith("error: ");

            Run issue = run("", "certs", "issue", "--ca-dir", dir.resolve("tls").toString(), "--name", "app",
                "--out-dir", tmp.resolve("app").toString());
            assertThat(issue.code()).as(issue.err()).isZero();
            Path app = tmp.resolve("app.properties");
            Files.writeString(app, "security.protocol=SSL\nssl.truststore.location=" + dir.resolve("tls/ca.pem")
                + "\nssl.certificate.location=" + tmp.resolve("app/app.pem") + "\nssl.key.location=" + tmp.resolve("app/app.key")
                + "\n");
            // dev --tls turns the authorizer on: User:app may read only once an admin lets it
            Run denied = run("", "consume", "--topic", "secure", "--from-beginning", "--max-messages", "2", b,
                "--command-config", app.toString());
            assertThat(denied.code()).as(denied.err()).isEqualTo(1);
            assertThat(denied.err()).contains("error: not authorized to DESCRIBE topic 'secure'");
            Run allow = run("", "acls", "add", "--allow-principal", "User:app", "--operation", "read", "--topic", "secure", b,
                "--command-config", config);
            assertThat(allow.code()).as(allow.err()).isZero();
            Run consume = run("", "consume", "--topic", "secure", "--from-beginning", "--max-messages", "2", b,
                "--command-config", app.toString());
            assertThat(consume.code()).as(consume.err()).isZero();
            assertThat(consume.out()).isEqualTo("one\ntwo\n");
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

    @Test
    void theTarballCarriesReadmeLicenseAndANoticeOfEveryBundledJar() throws Exception {
        Path dist = distDir();
        Path tarball = dist.resolveSibling(dist.getFileName() + ".tar.gz");
        assertThat(tarball).isRegularFile();
        Process tar = new ProcessBuilder("tar", "-tzf", tarball.toString()).redirectErrorStream(true).start();
        List<String> entries = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertThat(tar.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(tar.exitValue()).as(String.join("\n", entries)).isZero();
        String top = dist.getFileName() + "/";
        assertThat(entries).contains(top + "README.md", top + "LICENSE", top + "NOTICE", top + "deploy/README.md",
            top + "bin/raftline");

        // The repository's own files, the same in the unpacked copy beside the tarball.
        Path repo = Path.of("..").toAbsolutePath().normalize();
        for (String f : List.of("README.md", "LICENSE", "NOTICE")) {
            assertThat(dist.resolve(f)).as(f).hasSameTextualContentAs(repo.resolve(f));
        }
        assertThat(dist.resolve("deploy/README.md")).hasSameTextualContentAs(repo.resolve("deploy/README.md"));
        String license = Files.readString(dist.resolve("LICENSE"));
        assertThat(license).contains("Apache License", "Version 2.0, January 2004",
            "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION", "END OF TERMS AND CONDITIONS");

        // NOTICE names every third-party jar of lib/, and no other.
        Set<String> bundled = new TreeSet<>();
        for (String e : entries) {
            String name = e.substring(e.lastIndexOf('/') + 1);
            if (e.startsWith(top + "lib/") && name.endsWith(".jar") && !name.startsWith("raftline-")) {
                bundled.add(name);
            }
        }
        assertThat(bundled).isNotEmpty();
        Set<String> listed = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^  (\\S+\\.jar)\\s").matcher(Files.readString(dist.resolve("NOTICE")));
        while (m.find()) {
            listed.add(m.group(1));
        }
        assertThat(listed).as("the jars NOTICE lists (update NOTICE when a dependency changes)").isEqualTo(bundled);
    }
}
