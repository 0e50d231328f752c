package io.raftline.cli.command.dev;

import io.raftline.cli.CliException;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.StringJoiner;

/** Where a dev cluster's nodes listen and keep their files, and the one-time set-up of DIR. */
final class DevLayout {

    private final Path root;
    private final int nodes;
    private final int basePort;
    private DevTls tls;

    DevLayout(Path root, int nodes, int basePort) {
        this.root = root;
        this.nodes = nodes;
        this.basePort = basePort;
    }

    int brokerPort(int i) {
        return basePort + 10 * (i - 1);
    }

    int quorumPort(int i) {
        return brokerPort(i) + 1;
    }

    int controllerPort(int i) {
        return brokerPort(i) + 2;
    }

    int metricsPort(int i) {
        return brokerPort(i) + 3;
    }

    /** The Kafka wire-protocol listener (kafka.listener). */
    int kafkaPort(int i) {
        return brokerPort(i) + 4;
    }

    Path nodeDir(int i) {
        return root.resolve("node-" + i);
    }

    Path configFile(int i) {
        return nodeDir(i).resolve("server.properties");
    }

    List<Integer> allPorts() {
        List<Integer> ports = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            ports.add(brokerPort(i));
            ports.add(quorumPort(i));
            ports.add(controllerPort(i));
            ports.add(metricsPort(i));
            ports.add(kafkaPort(i));
        }
        return ports;
    }

    String bootstrap() {
        StringJoiner joiner = new StringJoiner(",");
        for (int i = 1; i <= nodes; i++) {
            joiner.add("127.0.0.1:" + brokerPort(i));
        }
        return joiner.toString();
    }

    /** The Kafka listeners, for Kafka's clients' bootstrap.servers. */
    String kafkaBootstrap() {
        StringJoiner joiner = new StringJoiner(",");
        for (int i = 1; i <= nodes; i++) {
            joiner.add("127.0.0.1:" + kafkaPort(i));
        }
        return joiner.toString();
    }

    private Path devFile() {
        return root.resolve("dev.properties");
    }

    /** A DIR made for another node count can't be reused (its quorum has other voters). */
    void checkCompatible() {
        Properties dev = readDev();
        if (dev == null) {
            return;
        }
        int made = Integer.parseInt(dev.getProperty("nodes", "-1"));
        if (made != nodes) {
            throw new CliException(root + " holds a dev cluster of " + made + " node(s), not " + nodes
                + ": use --nodes " + made + " or another --dir");
        }
    }

    /**
     * Writes each node's server.properties (every start, so a new base port takes effect) and formats the nodes
     * the first time. Returns the cluster id.
     */
    String prepare(Path home) throws IOException, InterruptedException {
        return prepare(home, false);
    }

    /** As {@link #prepare(Path)}; with {@code withTls}, TLS and mTLS on every listener ({@link DevTls}). */
    String prepare(Path home, boolean withTls) throws IOException, InterruptedException {
        tls = withTls ? DevTls.prepare(root, nodes, java.time.Instant.now()) : null;
        Properties dev = readDev();
        boolean fresh = dev == null;
        String clusterId;
        if (fresh) {
            clusterId = StorageTool.randomUuid(home);
        } else {
            clusterId = dev.getProperty("cluster.id");
        }
        for (int i = 1; i <= nodes; i++) {
            Files.createDirectories(nodeDir(i).resolve("logs"));
            Files.writeString(configFile(i), serverProperties(i), StandardCharsets.UTF_8);
        }
        if (fresh) {
            for (int i = 1; i <= nodes; i++) {
                StorageTool.format(home, configFile(i), clusterId, nodeDir(i).resolve("logs"));
            }
            Properties props = new Properties();
            props.setProperty("nodes", Integer.toString(nodes));
            props.setProperty("cluster.id", clusterId);
            try (Writer w = Files.newBufferedWriter(devFile(), StandardCharsets.UTF_8)) {
                props.store(w, "raftline dev");
            }
        }
        return clusterId;
    }

    private Properties readDev() {
        if (!Files.exists(devFile())) {
            return null;
        }
        Properties props = new Properties();
        try (Reader r = Files.newBufferedReader(devFile(), StandardCharsets.UTF_8)) {
            props.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return props;
    }

    String serverProperties(int i) {
        int rf = Math.min(3, nodes);
        StringJoiner voters = new StringJoiner(",");
        StringJoiner controllers = new StringJoiner(",");
        for (int v = 1; v <= nodes; v++) {
            voters.add(v + "@127.0.0.1:" + quorumPort(v));
            controllers.add("127.0.0.1:" + controllerPort(v));
        }
        Path node = nodeDir(i);
        return "# Written by raftline dev on every start.\n"
            + "node.id=" + i + "\n"
            + "process.roles=broker,controller\n"
            + "log.dirs=" + node.resolve("data") + "\n"
            + "metadata.dir=" + node.resolve("metadata") + "\n"
            + "broker.listener=127.0.0.1:" + brokerPort(i) + "\n"
            + "quorum.listener=127.0.0.1:" + quorumPort(i) + "\n"
            + "controller.listener=127.0.0.1:" + controllerPort(i) + "\n"
            + "metrics.listener=127.0.0.1:" + metricsPort(i) + "\n"
            + "kafka.listener=127.0.0.1:" + kafkaPort(i) + "\n"
            + "quorum.voters=" + voters + "\n"
            + "controller.bootstrap.servers=" + controllers + "\n"
            + "default.replication.factor=" + rf + "\n"
            + "offsets.topic.replication.factor=" + rf + "\n"
            + "min.insync.replicas=1\n"
            // As Kafka's shipped development config: a lone consumer starts at once instead of waiting 3 s.
            + "group.initial.rebalance.delay.ms=0\n"
            + (tls == null ? "" : tls.serverProperties(i));
    }

    /** The TLS set up by {@link #prepare(Path, boolean)}, or null. */
    DevTls tls() {
        return tls;
    }
}
