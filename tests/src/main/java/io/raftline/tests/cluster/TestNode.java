package io.raftline.tests.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One node process of a {@link TestCluster}: start, stop (SIGTERM), kill -9, pause (SIGSTOP), resume. */
public final class TestNode {

    /** In a config value given to the cluster builder: replaced by each node's own directory. */
    public static final String NODE_DIR = "{node.dir}";

    private volatile javax.net.ssl.SSLContext tls;

    private final int id;
    private final Path dir;
    private final boolean controller;
    private final boolean broker;
    private final int brokerPort;
    private final int quorumPort;
    private final int controllerPort;
    private final int metricsPort;
    private final int kafkaPort;
    private final String heap;
    private final String address;
    private final List<String> launcher;
    private final Map<String, String> environment;
    private Process process;
    /** Started by the test and not since stopped or killed by it. */
    private boolean wanted;

    TestNode(int id, Path dir, boolean controller, boolean broker, int[] ports, String heap, Placement placement) {
        this.id = id;
        this.address = placement.address(id);
        this.launcher = List.copyOf(placement.launcher(id));
        this.environment = Map.copyOf(placement.environment(id));
        this.dir = dir;
        this.controller = controller;
        this.broker = broker;
        this.brokerPort = ports[0];
        this.quorumPort = ports[1];
        this.controllerPort = ports[2];
        this.metricsPort = ports[3];
        this.kafkaPort = ports[4];
        this.heap = heap;
    }

    public int id() {
        return id;
    }

    public boolean isBroker() {
        return broker;
    }

    public boolean isController() {
        return controller;
    }

    public int brokerPort() {
        return brokerPort;
    }

    public int quorumPort() {
        return quorumPort;
    }

    public int controllerPort() {
        return controllerPort;
    }

    public int metricsPort() {
        return metricsPort;
    }

    /** The Kafka wire-protocol listener (kafka.listener) of a broker. */
    public int kafkaPort() {
        return kafkaPort;
    }

    /** The address every listener of this node binds (127.0.0.1 unless the cluster places nodes on hosts). */
    public String address() {
        return address;
    }

    public Path dir() {
        return dir;
    }

    public Path configFile() {
        return dir.resolve("server.properties");
    }

    public Path logFile() {
        return dir.resolve("logs/server.log");
    }

    void writeConfig(Map<String, String> extra) {
        StringBuilder sb = new StringBuilder();
        sb.append("node.id=").append(id).append('\n');
        List<String> roles = new ArrayList<>();
        if (broker) {
            roles.add("broker");
        }
        if (controller) {
            roles.add("controller");
        }
        sb.append("process.roles=").append(String.join(",", roles)).append('\n');
        sb.append("log.dirs=").append(dir.resolve("data")).append('\n');
        sb.append("metadata.dir=").append(dir.resolve("metadata")).append('\n');
        sb.append("broker.listener=").append(address).append(':').append(brokerPort).append('\n');
        sb.append("quorum.listener=").append(address).append(':').append(quorumPort).append('\n');
        sb.append("controller.listener=").append(address).append(':').append(controllerPort).append('\n');
        sb.append("metrics.listener=").append(address).append(':').append(metricsPort).append('\n');
        if (broker) {
            sb.append("kafka.listener=").append(address).append(':').append(kafkaPort).append('\n');
        }
        // "{node.dir}" in a value stands for this node's directory (e.g. several log.dirs per node).
        extra.forEach((k, v) -> sb.append(k).append('=').append(v.replace(NODE_DIR, dir.toString())).append('\n'));
        try {
            Files.createDirectories(dir.resolve("logs"));
            Files.writeString(configFile(), sb.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<String> javaCommand(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String opt : heap.split("\\s+")) {
            if (!opt.isBlank()) {
                cmd.add(opt);
            }
        }
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Draftline.log.dir=" + dir.resolve("logs"));
        cmd.add("-Dlog4j2.configurationFile=raftline-test-node-log4j2.xml");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("io.raftline.broker.ServerMain");
        cmd.addAll(List.of(args));
        return cmd;
    }

    void format(String clusterId) {
        try {
            Process p = new ProcessBuilder(javaCommand("storage", "format", "--config", configFile().toString(),
                "--cluster-id", clusterId)).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("format of node " + id + " failed: " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Empties the node's log dir ({@code data}) and metadata dir and formats them again with {@code clusterId}: the node
     * comes back as a freshly installed one with the same id. The node must not be running.
     */
    public synchronized void wipeAndFormat(String clusterId) {
        if (isRunning()) {
            throw new IllegalStateException("node " + id + " is running");
        }
        for (Path d : List.of(dir.resolve("data"), dir.resolve("metadata"))) {
            if (Files.isDirectory(d)) {
                try (java.util.stream.Stream<Path> walk = Files.walk(d)) {
                    walk.sorted(java.util.Comparator.reverseOrder()).filter(p -> !p.equals(d)).forEach(p -> p.toFile().delete());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        format(clusterId);
    }

    /** Starts the node process (also to restart it after a stop or kill). */
    public synchronized void start() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("node " + id + " is already running");
        }
        try {
            List<String> cmd = new ArrayList<>(launcher);
            cmd.addAll(javaCommand("server", "--config", configFile().toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().putAll(environment);
            process = pb
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("logs/console.out").toFile()))
                .start();
            process.getOutputStream().close();
            wanted = true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Started and not stopped or killed by the test, yet its process has ended (it failed on its own). */
    public synchronized boolean crashed() {
        return wanted && process != null && !process.isAlive();
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    public synchronized long pid() {
        return process == null ? -1 : process.pid();
    }

    /** With TLS on the metrics listener: HTTPS with the admin's certificate. */
    void useTls(javax.net.ssl.SSLContext context) {
        this.tls = context;
    }

    private HttpURLConnection open(String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create((tls == null ? "http" : "https") + "://" + address + ":" + metricsPort
            + path).toURL().openConnection();
        if (c instanceof javax.net.ssl.HttpsURLConnection https) {
            https.setSSLSocketFactory(tls.getSocketFactory());
        }
        return c;
    }

    /** GET /ready on the metrics listener is 200. */
    public boolean isReady() {
        return httpStatus("/ready") == 200;
    }

    /** The HTTP status of GET /ready: 200 ready, 503 not yet, -1 while the listener is not up. */
    public int readyStatus() {
        return httpStatus("/ready");
    }

    /** The body of GET /metrics. */
    public String scrapeMetrics() {
        try {
            HttpURLConnection c = open("/metrics");
            c.setConnectTimeout(1000);
            c.setReadTimeout(5000);
            try {
                return new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int httpStatus(String path) {
        try {
            HttpURLConnection c = open(path);
            c.setConnectTimeout(500);
            c.setReadTimeout(2000);
            try {
                return c.getResponseCode();
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * One line on what this node is doing, for a failure message (CI shows those, and not the node's files): running
     * or its exit code, then the last lines of its console and its last warnings and errors.
     */
    public String diagnose() {
        StringBuilder sb = new StringBuilder("node ").append(id).append(isRunning() ? " running" : " exited " + exitCode());
        sb.append("; console: ").append(lastLines(dir.resolve("logs/console.out"), 3, line -> true));
        sb.append("; last warnings: ").append(lastLines(logFile(), 4, line -> line.contains(" WARN ")
            || line.contains(" ERROR ")));
        return sb.toString();
    }

    private static List<String> lastLines(Path file, int count, java.util.function.Predicate<String> keep) {
        try {
            if (!Files.exists(file)) {
                return List.of();
            }
            List<String> kept = Files.readAllLines(file, StandardCharsets.UTF_8).stream().filter(keep)
                .map(line -> line.length() > 240 ? line.substring(0, 240) + "..." : line).toList();
            return kept.subList(Math.max(0, kept.size() - count), kept.size());
        } catch (IOException | UncheckedIOException e) {
            return List.of("(unreadable: " + e + ")");
        }
    }

    /** SIGTERM and wait: a clean, controlled stop. */
    public synchronized void stop(Duration timeout) {
        if (process == null) {
            return;
        }
        wanted = false;
        process.destroy();
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("node " + id + " did not stop within " + timeout.toMillis() + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public synchronized int exitCode() {
        return process == null || process.isAlive() ? -1 : process.exitValue();
    }

    /** kill -9. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        wanted = false;
        signal("KILL");
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGSTOP: the process stays but does nothing (a GC pause, a hung host). */
    public void pause() {
        signal("STOP");
    }

    /** SIGCONT. */
    public void resume() {
        signal("CONT");
    }

    private synchronized void signal(String name) {
        if (process == null || !process.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
            kill.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
