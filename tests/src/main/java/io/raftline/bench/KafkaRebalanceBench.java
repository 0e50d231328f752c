package io.raftline.bench;

import io.raftline.common.TestPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@link RebalanceBench} against Apache Kafka: the same measurement (N members settle, one joins, time until every
 * partition has one owner again), with Kafka's consumer on the classic group protocol, eager ({@link RangeAssignor})
 * against cooperative ({@link CooperativeStickyAssignor}), and the same session timeout, heartbeat interval and poll
 * interval.
 *
 * <p>Run: {@code java -cp <tests classpath>:<kafka libs>/* io.raftline.bench.KafkaRebalanceBench [bootstrap|-] [members]
 * [partitions] [rounds]}. With {@code -} it starts a 3-node KRaft cluster of its own (every node broker+controller, the
 * stock {@code server.properties} values as {@code tests/scripts/side-by-side.py} writes them, -Xmx512m) from the jars
 * that {@code tests/scripts/side-by-side.py fetch} puts in {@code $RAFTLINE_BENCH_CACHE/kafka-4.4.0/libs} (default
 * {@code ~/.cache/raftline-bench}), on free ports in a temporary directory, and stops and deletes it at the end.
 * kafka-clients is a {@code provided} dependency of this module: on the build's classpath only.
 */
public final class KafkaRebalanceBench {

    private KafkaRebalanceBench() {
    }

    /** A Kafka consumer (classic group protocol) as a {@link RebalanceBench.Member}. */
    static RebalanceBench.Member kafkaMember(String bootstrap, String group, String topic, String strategy, String id) {
        Properties p = RebalanceBench.memberProperties(bootstrap, group, strategy, id);
        p.setProperty("group.protocol", "classic");
        return new RebalanceBench.PollingMember("kafka-bench-" + id, () -> {
            KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            c.subscribe(List.of(topic));
            return new RebalanceBench.Poller() {
                @Override
                public Set<String> pollOnce() {
                    c.poll(RebalanceBench.POLL);
                    return c.assignment().stream().map(tp -> tp.topic() + "-" + tp.partition())
                        .collect(Collectors.toUnmodifiableSet());
                }

                @Override
                public void close() {
                    c.close();
                }
            };
        });
    }

    /** A throwaway KRaft cluster of {@code n} combined nodes, from the cached Kafka jars. */
    private static final class KafkaCluster implements AutoCloseable {
        final Path dir;
        final List<Process> nodes = new ArrayList<>();
        final String bootstrap;

        KafkaCluster(int n) throws IOException, InterruptedException {
            String cache = System.getenv().getOrDefault("RAFTLINE_BENCH_CACHE", System.getProperty("user.home") + "/.cache/raftline-bench");
            Path kdir = Path.of(cache, "kafka-4.4.0");
            Path libs = kdir.resolve("libs");
            if (!Files.isRegularFile(libs.resolve("kafka-clients-4.4.0.jar"))) {
                throw new IllegalStateException("no Kafka 4.4.0 jars in " + libs + ": run tests/scripts/side-by-side.py fetch first");
            }
            dir = Files.createTempDirectory("kafka-rebalance-bench-");
            int[] ports = TestPorts.free(2 * n);
            StringBuilder voters = new StringBuilder();
            StringBuilder bs = new StringBuilder();
            for (int i = 1; i <= n; i++) {
                voters.append(i == 1 ? "" : ",").append(i).append("@127.0.0.1:").append(ports[2 * i - 1]);
                bs.append(i == 1 ? "" : ",").append("127.0.0.1:").append(ports[2 * i - 2]);
            }
            bootstrap = bs.toString();
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            String cp = libs + "/*";
            String clusterId = Uuid.randomUuid().toString();
            List<Process> formats = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                Path node = dir.resolve("node-" + i);
                Files.createDirectories(node.resolve("logs"));
                Files.writeString(node.resolve("server.properties"), String.join("\n",
                    "process.roles=broker,controller", "node.id=" + i, "controller.quorum.voters=" + voters,
                    "listeners=PLAINTEXT://127.0.0.1:" + ports[2 * i - 2] + ",CONTROLLER://127.0.0.1:" + ports[2 * i - 1],
                    "controller.listener.names=CONTROLLER", "inter.broker.listener.name=PLAINTEXT",
                    "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                    "log.dirs=" + node.resolve("data"), "num.network.threads=3", "num.io.threads=8", "num.partitions=1",
                    "offsets.topic.replication.factor=" + Math.min(3, n), "transaction.state.log.replication.factor=" + Math.min(3, n),
                    "share.coordinator.state.topic.replication.factor=" + Math.min(3, n), "transaction.state.log.min.isr=1",
                    "group.initial.rebalance.delay.ms=0", ""));
                formats.add(new ProcessBuilder(java, "-Xmx256m", "-Dlog4j2.configurationFile=" + kdir.resolve("log4j2-tools.properties"),
                    "-cp", cp, "kafka.tools.StorageTool", "format", "-t", clusterId, "-c", node.resolve("server.properties").toString())
                    .redirectErrorStream(true).redirectOutput(node.resolve("logs/format.log").toFile()).start());
            }
            for (Process f : formats) {
                if (!f.waitFor(120, TimeUnit.SECONDS) || f.exitValue() != 0) {
                    throw new IllegalStateException("kafka storage format failed; see " + dir);
                }
            }
            for (int i = 1; i <= n; i++) {
                Path node = dir.resolve("node-" + i);
                nodes.add(new ProcessBuilder(java, "-Xmx512m", "-Xms512m", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
                    "-Dlog4j2.configurationFile=" + kdir.resolve("log4j2-server.properties"), "-Dkafka.logs.dir=" + node.resolve("logs"),
                    "-cp", cp, "kafka.Kafka", node.resolve("server.properties").toString())
                    .redirectErrorStream(true).redirectOutput(node.resolve("logs/stdout.log").toFile()).start());
            }
            for (int i = 1; i <= n; i++) {
                int port = ports[2 * i - 2];
                io.raftline.tests.cluster.TestCluster.await(() -> isOpen(port), Duration.ofSeconds(120), "kafka node on port " + port);
            }
        }

        private static boolean isOpen(int port) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        @Override
        public void close() {
            for (Process p : nodes) {
                p.destroyForcibly();
            }
            for (Process p : nodes) {
                try {
                    p.waitFor(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args.length > 0 ? args[0] : "-";
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        KafkaCluster cluster = null;
        if (bootstrap.equals("-")) {
            cluster = new KafkaCluster(3);
            bootstrap = cluster.bootstrap;
        }
        try {
            String topic = "rebalance-bench";
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                short rf = (short) Math.min(3, admin.describeCluster().nodes().get(120, TimeUnit.SECONDS).size());
                admin.createTopics(List.of(new NewTopic(topic, partitions, rf))).all().get(120, TimeUnit.SECONDS);
            }
            String bs = bootstrap;
            RebalanceBench.run("kafka", (group, t, strategy, id) -> kafkaMember(bs, group, t, strategy, id), topic, n, partitions,
                rounds, List.of(RangeAssignor.class.getName(), CooperativeStickyAssignor.class.getName()));
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }
}
