package io.raftline.tests.cluster;

import io.raftline.cli.command.dev.DevTls;
import io.raftline.client.admin.Admin;
import io.raftline.common.SystemTime;
import io.raftline.common.TestPorts;
import io.raftline.common.Uuid;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * A real Raftline cluster for tests: every node a separate JVM ({@code raftline server}) on 127.0.0.1 with
 * free ports, its files in a temp dir. Nodes are combined (broker+controller) by default, or split into
 * controller-only and broker-only processes. Shaped like {@code MiniCluster.run(n, cluster -> ...)}: build
 * one per test class, close it at the end.
 */
public final class TestCluster implements AutoCloseable {

    /** How a test cluster is laid out. */
    public static final class Builder {
        private int combined = 3;
        private int controllers;
        private int brokers;
        private final Map<String, String> overrides = new LinkedHashMap<>();
        private final Map<Integer, Map<String, String>> nodeOverrides = new LinkedHashMap<>();
        private boolean tls;
        private String heap = "-Xmx256m";
        private Placement placement = Placement.LOOPBACK;

        public Builder combined(int n) {
            this.combined = n;
            return this;
        }

        /** Separate processes: {@code controllers} quorum-only nodes and {@code brokers} broker-only nodes. */
        public Builder split(int controllerCount, int brokerCount) {
            this.combined = 0;
            this.controllers = controllerCount;
            this.brokers = brokerCount;
            return this;
        }

        /**
         * TLS and mTLS on every listener and link, as {@code raftline dev --tls} sets them up ({@link DevTls}): a CA
         * and certificates under the cluster's root; {@link #admin()} and {@link #clientProperties} use the admin's.
         */
        public Builder tls() {
            tls = true;
            return this;
        }

        public Builder config(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        /** A setting of node {@code id} alone, over {@link #config} ones. */
        public Builder nodeConfig(int id, String key, String value) {
            nodeOverrides.computeIfAbsent(id, k -> new LinkedHashMap<>()).put(key, value);
            return this;
        }

        /**
         * Settings for group tests: short sessions allowed, no initial rebalance delay, {@code offsetsPartitions}
         * partitions of __consumer_offsets replicated 3 times, and followers out of the ISR after 3 s.
         */
        public Builder groupTesting(int offsetsPartitions) {
            return config("group.min.session.timeout.ms", "1000")
                .config("group.initial.rebalance.delay.ms", "0")
                .config("offsets.topic.num.partitions", Integer.toString(offsetsPartitions))
                .config("offsets.topic.replication.factor", "3")
                .config("replica.lag.time.max.ms", "3000");
        }

        /** Where each node runs: its address, the command that places its process, its environment, its disks. */
        public Builder placement(Placement where) {
            this.placement = where;
            return this;
        }

        public Builder heap(String heapOpts) {
            this.heap = heapOpts;
            return this;
        }

        public TestCluster start() {
            TestCluster cluster = new TestCluster(this);
            try {
                cluster.startAll();
            } catch (RuntimeException | Error e) {
                // awaitReady fails with an AssertionError: the started node JVMs must not outlive the test
                cluster.close();
                throw e;
            }
            return cluster;
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    private final Path root;
    private Admin admin;
    private final Builder spec;
    private final Map<Integer, TestNode> nodes = new LinkedHashMap<>();
    private final String clusterId;
    private final Thread reaper;
    private DevTls tls;

    private TestCluster(Builder spec) {
        this.spec = spec;
        try {
            this.root = Files.createTempDirectory("raftline-test-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.clusterId = Uuid.random(ThreadLocalRandom.current()).toString();
        // A test JVM stopped from outside (a build timeout, Ctrl-C) never reaches close(): its nodes go with it.
        this.reaper = new Thread(this::killNodes, "test-cluster-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    private void killNodes() {
        for (TestNode node : nodes.values()) {
            node.kill();
        }
    }

    private void startAll() {
        int total = spec.combined > 0 ? spec.combined : spec.controllers + spec.brokers;
        List<Integer> voterIds = new ArrayList<>();
        for (int id = 1; id <= total; id++) {
            boolean controller = spec.combined > 0 || id <= spec.controllers;
            boolean broker = spec.combined > 0 || id > spec.controllers;
            int[] ports = TestPorts.free(5);
            TestNode node = new TestNode(id, root.resolve("node-" + id), controller, broker, ports, spec.heap, spec.placement);
            nodes.put(id, node);
            if (controller) {
                voterIds.add(id);
            }
        }
        StringJoiner voters = new StringJoiner(",");
        StringJoiner controllerEndpoints = new StringJoiner(",");
        for (int id : voterIds) {
            voters.add(id + "@" + nodes.get(id).address() + ":" + nodes.get(id).quorumPort());
            controllerEndpoints.add(nodes.get(id).address() + ":" + nodes.get(id).controllerPort());
        }
        int brokerCount = (int) nodes.values().stream().filter(TestNode::isBroker).count();
        if (spec.tls) {
            try {
                tls = DevTls.prepare(root, total, java.time.Instant.now());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            javax.net.ssl.SSLContext adminContext = tls.adminContext(java.time.Instant.now());
            nodes.values().forEach(n -> n.useTls(adminContext));
        }
        for (TestNode node : nodes.values()) {
            Map<String, String> props = new LinkedHashMap<>();
            props.put("quorum.voters", voters.toString());
            props.put("controller.bootstrap.servers", controllerEndpoints.toString());
            props.put("default.replication.factor", Integer.toString(Math.min(3, brokerCount)));
            props.put("offsets.topic.replication.factor", Integer.toString(Math.min(3, brokerCount)));
            props.put("offsets.topic.num.partitions", "5");
            props.put("group.initial.rebalance.delay.ms", "0");
            if (tls != null) {
                tls.serverProperties(node.id()).lines().forEach(line -> {
                    int eq = line.indexOf('=');
                    props.put(line.substring(0, eq), line.substring(eq + 1));
                });
            }
            props.putAll(spec.overrides);
            props.putAll(spec.nodeOverrides.getOrDefault(node.id(), Map.of()));
            node.writeConfig(props);
            spec.placement.prepare(node);
            node.format(clusterId);
        }
        for (TestNode node : nodes.values()) {
            node.start();
        }
        awaitReady(Duration.ofSeconds(90));
        awaitBrokersActive(Duration.ofSeconds(60));
    }

    /**
     * Waits until the controller counts every running broker as active. A node's /ready follows its own view of the
     * metadata, which may be ahead of what an admin request served by another broker sees; tests that create topics
     * with RF = broker count right after start need the cluster-wide view.
     */
    public void awaitBrokersActive(Duration timeout) {
        long brokers = nodes.values().stream().filter(n -> n.isBroker() && n.isRunning()).count();
        await(() -> {
            try {
                return admin().describeBrokers().get().stream().filter(b -> b.state().equals("active")).count() >= brokers;
            } catch (Exception e) {
                return false;
            }
        }, timeout, brokers + " brokers to be active in the metadata");
    }

    /** Waits until every running node answers /ready. */
    public void awaitReady(Duration timeout) {
        for (TestNode node : nodes.values()) {
            if (node.isRunning() || node.crashed()) {
                try {
                    await(() -> node.crashed() || node.isReady(), timeout, "node " + node.id() + " to be ready");
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + " (" + node.diagnose() + ")", e);
                }
                if (node.crashed()) {
                    throw new AssertionError("node " + node.id() + " exited while starting: " + node.diagnose());
                }
            }
        }
    }

    public String bootstrap() {
        return bootstrapWithout(-1);
    }

    /** The brokers' addresses as {@link #bootstrap()} lists them, without node {@code left}. */
    private String bootstrapWithout(int left) {
        StringJoiner joiner = new StringJoiner(",");
        for (TestNode node : nodes.values()) {
            if (node.isBroker() && node.id() != left) {
                joiner.add(node.address() + ":" + node.brokerPort());
            }
        }
        return joiner.toString();
    }

    /** The brokers' Kafka listeners, as Kafka clients' bootstrap.servers. */
    public String kafkaBootstrap() {
        StringJoiner joiner = new StringJoiner(",");
        for (TestNode node : nodes.values()) {
            if (node.isBroker()) {
                joiner.add(node.address() + ":" + node.kafkaPort());
            }
        }
        return joiner.toString();
    }

    /**
     * One Admin client over this cluster's brokers, created on first use and closed with the cluster, so test
     * classes share it instead of each wiring their own.
     */
    public synchronized Admin admin() {
        if (admin == null) {
            admin = Admin.create(clientProperties());
        }
        return admin;
    }

    /**
     * A new admin client that bootstraps from every broker but {@code avoided} and gives up on a request after 3 s (a
     * call after 5 s): a test that pauses node {@code avoided} (SIGSTOP) keeps watching the cluster instead of waiting
     * on the frozen node for a default 30 s timeout. The caller closes it.
     */
    public Admin adminAvoiding(int avoided) {
        return Admin.create(clientProperties("bootstrap.servers", bootstrapWithout(avoided), "request.timeout.ms", "3000",
            "default.api.timeout.ms", "5000"));
    }

    /** Client properties with {@code bootstrap.servers} set to this cluster's brokers, then the given key/value pairs. */
    public Properties clientProperties(String... keyValues) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap());
        if (tls != null) {
            try (java.io.Reader r = Files.newBufferedReader(tls.clientProperties())) {
                props.load(r);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            props.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return props;
    }

    /** The cluster's TLS (CA, certificates, the admin's client.properties), or null without {@link Builder#tls()}. */
    public DevTls tls() {
        return tls;
    }

    public TestNode node(int id) {
        TestNode node = nodes.get(id);
        if (node == null) {
            throw new IllegalArgumentException("no node " + id);
        }
        return node;
    }

    public List<TestNode> nodes() {
        return List.copyOf(nodes.values());
    }

    public String clusterId() {
        return clusterId;
    }

    public Path root() {
        return root;
    }

    /** Polls {@code condition} every 50 ms until it holds or {@code timeout} passes (then fails with {@code what}). */
    public static void await(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = SystemTime.INSTANCE.nanoseconds() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (SystemTime.INSTANCE.nanoseconds() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (admin != null) {
                admin.close();
                admin = null;
            }
        }
        killNodes();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // close() called from another shutdown hook: the reaper runs anyway
        }
        if (System.getenv("RAFTLINE_KEEP_TEST_DIRS") == null) {
            try (Stream<Path> walk = Files.walk(root)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // best effort
            }
        }
    }
}
