package io.raftline.cli.command.dev;

import io.raftline.cli.CliException;
import io.raftline.cli.output.Json;
import io.raftline.common.SystemTime;
import io.raftline.common.io.PortProbe;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code raftline dev}: a local cluster of N nodes, each broker and controller, as child processes on
 * 127.0.0.1. It formats the nodes the first time, waits until every node is ready, writes {@code DIR/cluster.json}
 * and prints the bootstrap address as its only stdout line; then it stays until Ctrl-C or SIGTERM and stops the
 * nodes it started (controlled shutdown, at most 10 s a node, then SIGKILL). It does not restart a node that
 * dies: it says so and keeps the others.
 */
@Command(name = "dev", mixinStandardHelpOptions = true,
    description = "Runs a local cluster (broker+controller in each node) on 127.0.0.1 until Ctrl-C.",
    footer = {"", "Node i listens on P+10(i-1) (broker), +1 (quorum), +2 (controller), +3 (metrics);",
        "its files live in DIR/node-i/.", "", "Examples:", "  raftline dev", "  raftline dev --nodes 1 --dir /tmp/rl",
        "  raftline dev --tls --dir /tmp/rl   (then: raftline topics list --command-config /tmp/rl/client.properties)"})
public final class DevCommand implements Callable<Integer> {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--nodes", defaultValue = "3", paramLabel = "N", description = "Number of nodes (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--dir", defaultValue = "data/dev", paramLabel = "DIR",
        description = "Where the nodes' files live (default: ${DEFAULT-VALUE}).")
    Path dir;

    @Option(names = "--base-port", defaultValue = "9092", paramLabel = "P",
        description = "The first node's broker port (default: ${DEFAULT-VALUE}).")
    int basePort;

    @Option(names = "--tls", description = "TLS and mTLS on every listener and link: a CA and certificates in DIR/tls/, "
        + "DIR/client.properties (the admin principal User:admin, a super user) for --command-config, and ACLs enforced "
        + "(raftline acls).")
    boolean tls;

    @Override
    public Integer call() throws Exception {
        if (nodes < 1 || nodes > 9) {
            throw new CliException("--nodes must be between 1 and 9, got " + nodes);
        }
        if (basePort < 1 || basePort + 10 * (nodes - 1) + 3 > 65535) {
            throw new CliException("--base-port " + basePort + " leaves no room for " + nodes + " nodes below 65536");
        }
        PrintWriter err = spec.commandLine().getErr();
        Path home = raftlineHome();
        Path root = dir.toAbsolutePath().normalize();
        Files.createDirectories(root);
        Files.deleteIfExists(root.resolve("cluster.json"));

        DevLayout layout = new DevLayout(root, nodes, basePort);
        layout.checkCompatible();
        checkPortsFree(layout);
        String clusterId = layout.prepare(home, tls);
        SSLContext adminTls = tls ? layout.tls().adminContext(java.time.Instant.now()) : null;

        List<DevNode> started = new ArrayList<>();
        CountDownLatch stop = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stop.countDown();
            stopAll(started, err);
            // Ctrl-C and SIGTERM are the normal way to stop dev: exit 0, not the JVM's 130/143.
            Runtime.getRuntime().halt(0);
        }, "dev-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        for (int i = 1; i <= nodes; i++) {
            DevNode node = DevNode.start(home, layout, i, adminTls);
            started.add(node);
            err.println("started node " + i + " (pid " + node.pid() + "), logs in " + layout.nodeDir(i).resolve("logs"));
        }
        err.flush();
        waitUntilReady(started, err);
        writeClusterJson(root, clusterId, layout, started);
        PrintWriter out = spec.commandLine().getOut();
        out.println(layout.bootstrap());
        out.flush();
        err.println("cluster is up: " + nodes + " node(s); cluster.json in " + root + "; Ctrl-C stops it");
        for (DevNode node : started) {
            err.println("web console of node " + node.id() + ": " + consoleUrl(layout, node.id()));
        }
        err.flush();

        // Report nodes that die; never restart them (a test may have killed one on purpose).
        List<DevNode> reported = new ArrayList<>();
        while (!stop.await(500, TimeUnit.MILLISECONDS)) {
            for (DevNode node : started) {
                if (!node.isAlive() && !reported.contains(node)) {
                    reported.add(node);
                    err.println("node " + node.id() + " (pid " + node.pid() + ") exited with code " + node.exitCode()
                        + "; not restarting it (restart by hand: raftline server --config " + node.config() + ")");
                    err.flush();
                }
            }
        }
        return 0;
    }

    private static Path raftlineHome() {
        String home = System.getProperty("raftline.home");
        if (home == null) {
            throw new CliException("raftline.home is not set: run dev through bin/raftline or ./raftline");
        }
        return Path.of(home);
    }

    private static void checkPortsFree(DevLayout layout) {
        for (int port : layout.allPorts()) {
            try {
                PortProbe.bindAndRelease(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            } catch (IOException e) {
                throw new CliException("port " + port + " is already in use");
            }
        }
    }

    private void waitUntilReady(List<DevNode> started, PrintWriter err) throws InterruptedException {
        long deadline = SystemTime.INSTANCE.nanoseconds() + READY_TIMEOUT.toNanos();
        for (DevNode node : started) {
            while (!node.isReady()) {
                if (!node.isAlive()) {
                    throw new CliException("node " + node.id() + " exited with code " + node.exitCode()
                        + " while starting; see " + node.logFile());
                }
                if (SystemTime.INSTANCE.nanoseconds() > deadline) {
                    throw new CliException("node " + node.id() + " was not ready within " + READY_TIMEOUT.toSeconds()
                        + " s; see " + node.logFile());
                }
                Thread.sleep(100);
            }
        }
    }

    private static void writeClusterJson(Path root, String clusterId, DevLayout layout, List<DevNode> started)
        throws IOException {
        var doc = Json.object();
        doc.put("clusterId", clusterId);
        doc.put("bootstrap", layout.bootstrap());
        doc.put("kafkaBootstrap", layout.kafkaBootstrap());
        if (layout.tls() != null) {
            doc.put("tls", true);
            doc.put("clientConfig", layout.tls().clientProperties().toString());
        }
        var array = doc.putArray("nodes");
        for (DevNode node : started) {
            int i = node.id();
            var n = array.addObject();
            n.put("id", i);
            n.put("pid", node.pid());
            n.put("broker", "127.0.0.1:" + layout.brokerPort(i));
            n.put("quorum", "127.0.0.1:" + layout.quorumPort(i));
            n.put("controller", "127.0.0.1:" + layout.controllerPort(i));
            n.put("metrics", "127.0.0.1:" + layout.metricsPort(i));
            n.put("kafka", "127.0.0.1:" + layout.kafkaPort(i));
            n.put("console", consoleUrl(layout, i));
            n.put("dir", layout.nodeDir(i).toString());
        }
        Path tmp = root.resolve("cluster.json.tmp");
        Files.writeString(tmp, Json.write(doc) + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, root.resolve("cluster.json"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The web console a node serves on its metrics listener (CLI.md, "The web console"). */
    static String consoleUrl(DevLayout layout, int node) {
        return "http://127.0.0.1:" + layout.metricsPort(node) + "/ui/";
    }

    /** SIGTERM to every node at once (each does a controlled shutdown), SIGKILL after 10 s. */
    private static void stopAll(List<DevNode> started, PrintWriter err) {
        for (DevNode node : started) {
            node.terminate();
        }
        for (DevNode node : started) {
            if (!node.awaitExit(Duration.ofSeconds(10))) {
                err.println("node " + node.id() + " did not stop within 10 s; killing it");
                node.kill();
                node.awaitExit(Duration.ofSeconds(5));
            }
        }
        err.println("stopped " + started.size() + " node(s)");
        err.flush();
    }
}
