package io.raftline.tests.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.common.TestPorts;
import io.raftline.tests.cluster.TestCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM {@code bin/raftline server} gives a real node. Its class-data sharing archive, built over three starts (see
 * the script): the first records the classes it loads, the second adopts that list and builds the archive in the
 * background while it starts without one, the third maps it; {@code RAFTLINE_CDS=off} writes nothing. Its JIT
 * ({@code RAFTLINE_JIT}): C1 only on a host of two processors or fewer unless set, as the running JVM's flags show. A
 * private copy of the distribution (its jars linked, not copied) keeps the shared one's {@code var/cds} out of it.
 */
@Timeout(400)
class NodeLauncherIT {

    private static final Duration START = Duration.ofSeconds(90);
    private static final Duration BUILD = Duration.ofSeconds(240);

    @TempDir
    Path tmp;

    private static Path sharedDist() {
        return Path.of(System.getProperty("raftline.dist", "../deploy/target/raftline-0.1.0-SNAPSHOT")).toAbsolutePath()
            .normalize();
    }

    /** bin/ and config/ copied, every jar of lib/ a symbolic link to the shared distribution's, no var/. */
    private Path privateDist() throws IOException {
        Path home = tmp.resolve("dist");
        Path shared = sharedDist();
        for (String dir : List.of("bin", "config")) {
            Files.createDirectories(home.resolve(dir));
            try (Stream<Path> files = Files.list(shared.resolve(dir))) {
                for (Path f : files.toList()) {
                    Files.copy(f, home.resolve(dir).resolve(f.getFileName()), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        Files.createDirectories(home.resolve("lib"));
        try (Stream<Path> jars = Files.list(shared.resolve("lib"))) {
            for (Path jar : jars.toList()) {
                Files.createSymbolicLink(home.resolve("lib").resolve(jar.getFileName()), jar);
            }
        }
        return home;
    }

    private Path config(Path home) throws IOException, InterruptedException {
        int[] p = TestPorts.free(5);
        Path node = tmp.resolve("node-1");
        Path config = tmp.resolve("server.properties");
        Files.writeString(config, String.join("\n",
            "node.id=1",
            "process.roles=broker,controller",
            "log.dirs=" + node.resolve("data"),
            "metadata.dir=" + node.resolve("metadata"),
            "broker.listener=127.0.0.1:" + p[0],
            "quorum.listener=127.0.0.1:" + p[1],
            "controller.listener=127.0.0.1:" + p[2],
            "metrics.listener=127.0.0.1:" + p[3],
            "kafka.listener=127.0.0.1:" + p[4],
            "quorum.voters=1@127.0.0.1:" + p[1],
            "controller.bootstrap.servers=127.0.0.1:" + p[2],
            "default.replication.factor=1",
            "offsets.topic.replication.factor=1",
            "min.insync.replicas=1", ""));
        Process uuid = command(home, Map.of(), "storage", "random-uuid").start();
        String id = new String(uuid.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(uuid.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String[] lines = id.split("\n");
        Process format = command(home, Map.of(), "storage", "format", "--config", config.toString(), "--cluster-id",
            lines[lines.length - 1]).redirectErrorStream(true).start();
        String out = new String(format.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(format.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(format.exitValue()).as("storage format: " + out).isZero();
        return config;
    }

    private ProcessBuilder command(Path home, Map<String, String> env, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(home.resolve("bin/raftline").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("RAFTLINE_HEAP_OPTS", "-Xmx256m");
        pb.environment().remove("RAFTLINE_OPTS");
        pb.environment().remove("RAFTLINE_CDS");
        pb.environment().putAll(env);
        return pb;
    }

    /** Starts the node, waits for "node 1 started" in its log, and returns its JVM (bin/raftline execs it). */
    private Process startNode(Path home, Path config, int start, Map<String, String> env) throws IOException {
        Path logs = tmp.resolve("logs-" + start);
        Map<String, String> all = new java.util.HashMap<>(env);
        all.put("RAFTLINE_LOG_DIR", logs.toString());
        ProcessBuilder pb = command(home, all, "server", "--config", config.toString());
        pb.redirectErrorStream(true).redirectOutput(tmp.resolve("console-" + start + ".out").toFile());
        Process node = pb.start();
        TestCluster.await(() -> {
            assertThat(node.isAlive()).as("node of start " + start + " running; its output: " + read(tmp.resolve(
                "console-" + start + ".out"))).isTrue();
            return read(logs.resolve("server.log")).contains("node 1 started");
        }, START, "start " + start + " of the node");
        return node;
    }

    private static void stop(Process node) throws InterruptedException {
        node.destroy();
        if (!node.waitFor(30, TimeUnit.SECONDS)) {
            node.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static String read(Path f) {
        try {
            return Files.exists(f) ? Files.readString(f) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> names(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The shared archive files the process maps (its /proc maps), by file name. */
    private static List<String> mappedArchives(Process p) throws IOException {
        return Files.readAllLines(Path.of("/proc", String.valueOf(p.pid()), "maps")).stream()
            .filter(l -> l.endsWith(".jsa")).map(l -> Path.of(l.substring(l.indexOf('/'))).getFileName().toString())
            .distinct().toList();
    }

    @Test
    void aNodeRecordsItsClassesThenBuildsTheArchiveThenMapsIt() throws Exception {
        Path home = privateDist();
        Path config = config(home);
        Path cds = home.resolve("var/cds");

        Process first = startNode(home, config, 1, Map.of());
        assertThat(mappedArchives(first)).noneMatch(n -> n.startsWith("node-"));
        stop(first);
        List<String> recorded = names(cds).stream().filter(n -> n.contains(".classlist.")).toList();
        assertThat(recorded).as("files in var/cds: " + names(cds)).hasSize(1);
        assertThat(recorded.get(0)).endsWith(".classlist." + first.pid());
        assertThat(Files.readAllLines(cds.resolve(recorded.get(0)))).hasSizeGreaterThan(2000)
            .anyMatch(l -> l.startsWith("io/raftline/broker/ServerMain"));

        Process second = startNode(home, config, 2, Map.of());
        assertThat(mappedArchives(second)).as("the second start maps no node archive yet").noneMatch(n -> n.startsWith("node-"));
        stop(second);
        TestCluster.await(() -> names(cds).stream().anyMatch(n -> n.matches("node-\\d+\\.jsa"))
            && names(cds).stream().noneMatch(n -> n.matches("node-\\d+\\.jsa\\..+")), BUILD,
            "the archive built from the first start's class list (var/cds: " + names(cds) + ")");
        String archive = names(cds).stream().filter(n -> n.matches("node-\\d+\\.jsa")).findFirst().orElseThrow();
        assertThat(names(cds)).contains(archive.replace(".jsa", ".classlist"));

        Process third = startNode(home, config, 3, Map.of());
        assertThat(mappedArchives(third)).as("the third start maps the archive").contains(archive);
        assertThat(read(tmp.resolve("console-3.out"))).doesNotContain("[cds]").doesNotContain("warning");
        stop(third);
    }

    /** The running JVM's TieredStopAtLevel, from {@code jcmd PID VM.flags}; 4 (the JVM's default) when not set. */
    private static int tieredStopAtLevel(Process p) throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
            String.valueOf(p.pid()), "VM.flags").redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(jcmd.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(jcmd.exitValue()).as("jcmd VM.flags: " + out).isZero();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("-XX:TieredStopAtLevel=(\\d+)").matcher(out);
        return m.find() ? Integer.parseInt(m.group(1)) : 4;
    }

    private static int hostProcessors() throws IOException, InterruptedException {
        Process nproc = new ProcessBuilder("nproc").start();
        String out = new String(nproc.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(nproc.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return Integer.parseInt(out);
    }

    @Test
    void theJitIsC1OnlyOnASmallHostUnlessSet() throws Exception {
        Path home = privateDist();
        Path config = config(home);
        int expected = hostProcessors() <= 2 ? 1 : 4;
        int start = 0;
        for (Map.Entry<String, Integer> c : List.of(Map.entry("auto", expected), Map.entry("c1", 1),
            Map.entry("tiered", 4))) {
            Map<String, String> env = c.getKey().equals("auto") ? Map.of("RAFTLINE_CDS", "off")
                : Map.of("RAFTLINE_CDS", "off", "RAFTLINE_JIT", c.getKey());
            Process node = startNode(home, config, ++start, env);
            try {
                assertThat(tieredStopAtLevel(node)).as("RAFTLINE_JIT " + c.getKey()).isEqualTo(c.getValue());
            } finally {
                stop(node);
            }
        }
        // RAFTLINE_OPTS comes later and wins
        Process node = startNode(home, config, ++start,
            Map.of("RAFTLINE_CDS", "off", "RAFTLINE_JIT", "c1", "RAFTLINE_OPTS", "-XX:TieredStopAtLevel=4"));
        try {
            assertThat(tieredStopAtLevel(node)).isEqualTo(4);
        } finally {
            stop(node);
        }
    }

    @Test
    void aBadJitIsOneErrorLineAndStartsNothing() throws Exception {
        Path home = privateDist();
        Path config = config(home);
        Path logs = tmp.resolve("logs-bad");
        Process p = command(home, Map.of("RAFTLINE_JIT", "c3", "RAFTLINE_LOG_DIR", logs.toString()), "server",
            "--config", config.toString()).start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(1);
        assertThat(err.lines().toList()).containsExactly("error: RAFTLINE_JIT must be auto, c1 or tiered, not 'c3'");
        assertThat(logs).doesNotExist();
        assertThat(names(home.resolve("var/cds"))).noneMatch(n -> n.startsWith("node-"));
    }

    @Test
    void offWritesNothing() throws Exception {
        Path home = privateDist();
        Path config = config(home);
        Process node = startNode(home, config, 1, Map.of("RAFTLINE_CDS", "off"));
        assertThat(mappedArchives(node)).noneMatch(n -> n.startsWith("node-"));
        stop(node);
        assertThat(names(home.resolve("var/cds"))).noneMatch(n -> n.startsWith("node-"));
    }
}
