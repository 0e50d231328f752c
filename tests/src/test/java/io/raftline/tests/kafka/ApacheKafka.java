package io.raftline.tests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.common.TestPorts;
import io.raftline.tests.cluster.ProcessStats;
import io.raftline.tests.cluster.TestCluster;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

/**
 * Apache Kafka's own jars, run as separate processes: its 4.4.0 broker (one KRaft node), Kafka Connect and
 * MirrorMaker 2. The jars come from Maven Central through the mechanism the side-by-side figures use:
 * {@code tests/scripts/side-by-side.py fetch} builds tests/kafka-bench into
 * {@code ${RAFTLINE_BENCH_CACHE:-~/.cache/raftline-bench}/kafka-4.4.0/libs} (and tests/kafka-bench/connect into
 * {@code connect-libs}) once (a lock and a marker in the cache make it safe to call from several runs) and prints
 * that directory.
 */
final class ApacheKafka {

    private static Path home;

    private ApacheKafka() {
    }

    /** The cache directory holding {@code libs/} and the log4j2 files, fetched now if missing or stale. */
    static synchronized Path home() throws Exception {
        if (home != null) {
            return home;
        }
        Path script = Path.of(System.getProperty("user.dir")).resolve("scripts/side-by-side.py");
        Process fetch = new ProcessBuilder("python3", script.toString(), "fetch").redirectErrorStream(false).start();
        fetch.getOutputStream().close();
        Path err = Files.createTempFile("kafka-fetch-", ".log");
        fetch.getErrorStream().transferTo(Files.newOutputStream(err));
        String out = new String(fetch.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(fetch.waitFor(30, TimeUnit.MINUTES)).as("fetching Kafka's jars took over 30 minutes").isTrue();
        assertThat(fetch.exitValue()).as(script + " fetch:\n" + Files.readString(err) + out).isZero();
        Path dir = Path.of(out.lines().reduce((a, b) -> b).orElseThrow());
        assertThat(dir.resolve("libs")).isDirectory();
        assertThat(dir.resolve("connect-libs")).isDirectory();
        home = dir;
        return dir;
    }

    /** {@code java -Xmx256m -cp libs/* mainClass args} (Kafka 4.4.0), its stdout and stderr into {@code log}. */
    static Process start(Path log, List<String> jvm, String mainClass, String... args) throws Exception {
        return start("libs", log, jvm, mainClass, args);
    }

    /**
     * {@code java -Xmx256m -cp connect-libs/* mainClass args}: Kafka Connect, its file connectors and MirrorMaker 2
     * (4.3.1, with kafka-clients 4.3.1: see tests/kafka-bench/connect/pom.xml for why not 4.4.0).
     */
    static Process startConnect(Path log, List<String> jvm, String mainClass, String... args) throws Exception {
        return start("connect-libs", log, jvm, mainClass, args);
    }

    /** The process is killed with this JVM if the test cannot stop it itself. */
    private static Process start(String libs, Path log, List<String> jvm, String mainClass, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m"));
        cmd.addAll(jvm);
        cmd.addAll(List.of("-cp", home().resolve(libs) + "/*", mainClass));
        cmd.addAll(List.of(args));
        Files.createDirectories(log.getParent());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        p.getOutputStream().close();
        // a test JVM stopped from outside never reaches its finally blocks: the process goes with it
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "kill-" + mainClass));
        return p;
    }

    /** Asks the process to stop (SIGTERM, which runs Kafka's shutdown hooks) and waits; kills it after the grace. */
    static boolean stop(Process p, Duration grace) throws InterruptedException {
        return stop(p, grace, false) == null;
    }

    /**
     * As {@link #stop(Process, Duration)}, for a stop that must not hang: {@code null} if the process stopped within
     * the grace, otherwise its threads ({@code jcmd PID Thread.print}, taken before the kill) to show what held it.
     */
    static String stopOrThreads(Process p, Duration grace) throws InterruptedException {
        return stop(p, grace, true);
    }

    private static String stop(Process p, Duration grace, boolean threads) throws InterruptedException {
        if (p == null || !p.isAlive()) {
            return null;
        }
        p.destroy();
        if (p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            return null;
        }
        String held = "";
        if (threads) {
            try {
                held = ProcessStats.jcmd(p.pid(), "Thread.print\n");
            } catch (RuntimeException e) {
                held = "jcmd Thread.print on " + p.pid() + " failed: " + e;
            }
        }
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
        return held;
    }

    /** The last {@code lines} lines of a log, for failure messages. */
    static String tail(Path log, int lines) {
        try {
            List<String> all = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
            return "--- " + log + " (last " + lines + " lines)\n"
                + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "--- " + log + ": " + e;
        }
    }

    /** A log4j2 configuration that logs INFO and above to stdout, written to {@code dir}. */
    static Path infoToStdout(Path dir) throws IOException {
        Path file = dir.resolve("log4j2-info.properties");
        Files.writeString(file, String.join("\n", "status = warn", "appender.out.type = Console", "appender.out.name = OUT",
            "appender.out.layout.type = PatternLayout", "appender.out.layout.pattern = [%d] %p %m (%c)%n",
            "rootLogger.level = INFO", "rootLogger.appenderRef.out.ref = OUT", ""));
        return file;
    }

    /**
     * One Apache Kafka 4.4.0 node, broker and controller, as side-by-side.py's KafkaCluster starts them (formatted with
     * StorageTool, run as {@code kafka.Kafka}), at -Xmx256m on free ports, with replication factor 1 for its internal
     * topics.
     */
    static final class Node implements AutoCloseable {

        private final Path dir;
        private final int port;
        private Process process;

        private Node(Path dir, int port) {
            this.dir = dir;
            this.port = port;
        }

        static Node start(Path dir) throws Exception {
            Path kdir = home();
            int[] ports = TestPorts.free(2);
            Node node = new Node(dir, ports[0]);
            String listeners = "PLAINTEXT://127.0.0.1:" + ports[0] + ",CONTROLLER://127.0.0.1:" + ports[1];
            Files.createDirectories(dir.resolve("logs"));
            Path config = dir.resolve("server.properties");
            Files.writeString(config, String.join("\n", "process.roles=broker,controller", "node.id=1",
                "controller.quorum.bootstrap.servers=127.0.0.1:" + ports[1], "listeners=" + listeners,
                "advertised.listeners=" + listeners, "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT", "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                "log.dirs=" + dir.resolve("data"), "num.partitions=1", "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=3", "transaction.state.log.replication.factor=1", "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1", "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0", ""));
            String clusterId = Base64.getUrlEncoder().withoutPadding().encodeToString(uuidBytes()).replace('-', 'A');
            Path formatLog = dir.resolve("logs/format.log");
            Process format = ApacheKafka.start(formatLog, List.of("-Dlog4j2.configurationFile=" + kdir.resolve("log4j2-tools.properties")),
                "kafka.tools.StorageTool", "format", "-t", clusterId, "-c", config.toString(), "--standalone");
            assertThat(format.waitFor(120, TimeUnit.SECONDS) && format.exitValue() == 0).as(tail(formatLog, 30)).isTrue();
            node.process = ApacheKafka.start(dir.resolve("logs/stdout.log"), List.of(
                "-Dlog4j2.configurationFile=" + kdir.resolve("log4j2-server.properties"), "-Dkafka.logs.dir=" + dir.resolve("logs")),
                "kafka.Kafka", config.toString());
            try {
                TestCluster.await(() -> node.process.isAlive() && isOpen(node.port), Duration.ofSeconds(120),
                    "the Kafka node to listen on " + node.port + " (" + dir.resolve("logs") + ")");
                try (Admin admin = Admin.create(Map.of("bootstrap.servers", node.bootstrap()))) {
                    admin.describeCluster().nodes().get(60, TimeUnit.SECONDS);
                }
            } catch (Throwable t) {
                node.close();
                throw new AssertionError("Kafka did not start:\n" + tail(dir.resolve("logs/server.log"), 40), t);
            }
            return node;
        }

        private static byte[] uuidBytes() {
            UUID id = UUID.randomUUID();
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16);
            b.putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
            return b.array();
        }

        private static boolean isOpen(int port) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        String bootstrap() {
            return "127.0.0.1:" + port;
        }

        Path serverLog() {
            return dir.resolve("logs/server.log");
        }

        @Override
        public void close() {
            try {
                stop(process, Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }
}
