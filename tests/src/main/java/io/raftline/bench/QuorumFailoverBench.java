package io.raftline.bench;

import io.raftline.common.SystemTime;
import io.raftline.common.TestPorts;
import io.raftline.metadata.client.BrokerMetadataClient;
import io.raftline.metadata.client.ControllerChannel;
import io.raftline.metadata.controller.ControllerConfig;
import io.raftline.metadata.quorum.QuorumConfig;
import io.raftline.metadata.quorum.QuorumNode;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.protocol.controller.DescribeQuorumRequest;
import io.raftline.protocol.controller.DescribeQuorumResponse;
import io.raftline.protocol.metadata.Endpoint;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Measures, on real processes, (1) the time from kill -9 of the metadata quorum leader to the first successful
 * metadata write after it, and (2) topic creations per second from one client, one awaited call after another.
 *
 * <pre>
 *   java -cp &lt;classpath&gt; io.raftline.bench.QuorumFailoverBench [rounds] [topics]
 * </pre>
 *
 * Starts three quorum nodes as child JVMs ({@code QuorumFailoverBench node ...}) on loopback with ephemeral
 * ports, registers three brokers (metadata clients only) from this JVM, then runs the topic-creation measurement
 * (N topics x 3 partitions, RF 3, each call awaited until a broker's image has it) and the failover rounds (kill -9
 * the leader's process, write until a write succeeds, restart the killed node, wait until it has caught up).
 */
public final class QuorumFailoverBench {

    private static final String CLUSTER = "bench-cluster";

    private QuorumFailoverBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("node")) {
            runNode(args);
            return;
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int topics = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        new Harness(rounds, topics).run();
    }

    /** A quorum node in its own JVM: node id, dir, quorum port, controller port, voters "1@host:port,...". */
    private static void runNode(String[] args) throws Exception {
        int id = Integer.parseInt(args[1]);
        Map<Integer, InetSocketAddress> voters = new TreeMap<>();
        for (String v : args[5].split(",")) {
            String[] idAddr = v.split("@");
            String[] hp = idAddr[1].split(":");
            voters.put(Integer.parseInt(idAddr[0]), new InetSocketAddress(hp[0], Integer.parseInt(hp[1])));
        }
        QuorumConfig config = QuorumConfig.builder().nodeId(id).clusterId(CLUSTER).quorumListener("127.0.0.1",
            Integer.parseInt(args[3])).controllerListener("127.0.0.1", Integer.parseInt(args[4])).voters(voters)
            .metadataDir(Path.of(args[2])).electionTimeoutMs(Long.getLong("bench.electionMinMs", 350),
                Long.getLong("bench.electionMaxMs", 700)).build();
        QuorumNode node = QuorumNode.start(config, ControllerConfig.defaults(), SystemTime.INSTANCE, null);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
            } catch (IOException e) {
                e.printStackTrace();
            }
        }));
        System.out.println("node " + id + " ready");
        new CountDownLatch(1).await();
    }

    private static final class Harness {
        final int rounds;
        final int topics;
        final Path root;
        final Map<Integer, int[]> ports = new LinkedHashMap<>();
        final Map<Integer, Process> processes = new TreeMap<>();
        String votersArg;

        Harness(int rounds, int topics) throws IOException {
            this.rounds = rounds;
            this.topics = topics;
            this.root = Files.createTempDirectory("raftline-failover-bench-");
        }

        void run() throws Exception {
            List<String> voters = new ArrayList<>();
            for (int id = 1; id <= 3; id++) {
                ports.put(id, TestPorts.free(2));
                voters.add(id + "@127.0.0.1:" + ports.get(id)[0]);
            }
            votersArg = String.join(",", voters);
            List<InetSocketAddress> controllers = new ArrayList<>();
            ports.values().forEach(p -> controllers.add(new InetSocketAddress("127.0.0.1", p[1])));
            List<BrokerMetadataClient> brokers = new ArrayList<>();
            try (ControllerChannel channel = new ControllerChannel(controllers, SystemTime.INSTANCE, 30_000)) {
                for (int id = 1; id <= 3; id++) {
                    start(id);
                }
                for (int b = 1; b <= 3; b++) {
                    BrokerMetadataClient c = new BrokerMetadataClient(100 + b, CLUSTER, controllers,
                        List.of(Endpoint.newBuilder().setName("broker").setHost("127.0.0.1").setPort(30000 + b).build()),
                        "", SystemTime.INSTANCE);
                    c.start();
                    brokers.add(c);
                }
                for (BrokerMetadataClient b : brokers) {
                    b.lifecycle().unfenced().get(60, TimeUnit.SECONDS);
                }
                topicCreations(channel, brokers.get(0));
                failovers(channel);
            } finally {
                brokers.forEach(BrokerMetadataClient::close);
                processes.values().forEach(Process::destroyForcibly);
                if (System.getProperty("bench.keep") == null) {
                    deleteTree(root);
                } else {
                    System.out.println("node logs kept in " + root);
                }
            }
        }

        void topicCreations(ControllerChannel channel, BrokerMetadataClient broker) throws Exception {
            for (int i = 0; i < 20; i++) {
                create(channel, "warmup-" + i, 3, 3);
            }
            double[] perCall = new double[topics];
            double[] writeOnly = new double[topics];
            long t0 = SystemTime.INSTANCE.nanoseconds();
            for (int i = 0; i < topics; i++) {
                long s = SystemTime.INSTANCE.nanoseconds();
                CreateTopicsResponse r = create(channel, "topic-" + i, 3, 3);
                writeOnly[i] = (SystemTime.INSTANCE.nanoseconds() - s) / 1e6;
                broker.follower().awaitIndex(r.getMetadataIndex()).get(10, TimeUnit.SECONDS);
                perCall[i] = (SystemTime.INSTANCE.nanoseconds() - s) / 1e6;
            }
            double seconds = (SystemTime.INSTANCE.nanoseconds() - t0) / 1e9;
            Arrays.sort(perCall);
            Arrays.sort(writeOnly);
            System.out.printf(Locale.ROOT, "controller answer alone: p50 %.2f ms, p99 %.2f ms%n", writeOnly[topics / 2],
                writeOnly[(int) (topics * 0.99)]);
            System.out.printf(Locale.ROOT, "{\"topics\":%d,\"partitions\":3,\"replicationFactor\":3,\"topicsPerSec\":%.1f,"
                + "\"perCallMs\":{\"avg\":%.2f,\"p50\":%.2f,\"p99\":%.2f,\"max\":%.2f}}%n", topics, topics / seconds,
                Arrays.stream(perCall).average().orElse(0), perCall[topics / 2], perCall[(int) (topics * 0.99)],
                perCall[topics - 1]);
        }

        void failovers(ControllerChannel channel) throws Exception {
            List<Double> results = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                int leader = awaitLeader(channel);
                create(channel, "before-" + round, 1, 1);
                long killedAt = SystemTime.INSTANCE.nanoseconds();
                System.out.println(java.time.LocalTime.now() + " killing " + leader);
                processes.remove(leader).destroyForcibly();
                int attempt = 0;
                CreateTopicsResponse r;
                do {
                    r = create(channel, "after-" + round + "-" + attempt++, 1, 1);
                } while (r.getTopics(0).getError().getCode() != ErrorCode.NONE);
                double ms = (SystemTime.INSTANCE.nanoseconds() - killedAt) / 1e6;
                int newLeader = awaitLeader(channel);
                results.add(ms);
                System.out.printf(Locale.ROOT, "round %d: killed leader %d (kill -9); first successful write after %.0f ms;"
                    + " new leader %d%n", round, leader, ms, newLeader);
                start(leader);
                long target = r.getMetadataIndex();
                awaitCaughtUp(channel, leader, target);
            }
            double[] sorted = results.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            System.out.printf(Locale.ROOT, "{\"rounds\":%d,\"killToFirstWriteMs\":{\"min\":%.0f,\"median\":%.0f,\"max\":%.0f,"
                + "\"all\":%s}}%n", rounds, sorted[0], sorted[sorted.length / 2], sorted[sorted.length - 1], results);
        }

        CreateTopicsResponse create(ControllerChannel channel, String name, int partitions, int rf) throws Exception {
            return channel.createTopics(CreateTopicsRequest.newBuilder().addTopics(CreatableTopic.newBuilder().setName(name)
                .setNumPartitions(partitions).setReplicationFactor(rf)).build()).get(60, TimeUnit.SECONDS);
        }

        int awaitLeader(ControllerChannel channel) throws Exception {
            long deadline = SystemTime.INSTANCE.nanoseconds() + TimeUnit.SECONDS.toNanos(60);
            while (SystemTime.INSTANCE.nanoseconds() < deadline) {
                DescribeQuorumResponse d = channel.describeQuorum(DescribeQuorumRequest.getDefaultInstance())
                    .get(60, TimeUnit.SECONDS);
                if (d.getError().getCode() == ErrorCode.NONE && d.getLeaderId() >= 0) {
                    return d.getLeaderId();
                }
            }
            throw new IllegalStateException("no leader within 60 s");
        }

        void awaitCaughtUp(ControllerChannel channel, int node, long index) throws Exception {
            long deadline = SystemTime.INSTANCE.nanoseconds() + TimeUnit.SECONDS.toNanos(60);
            while (SystemTime.INSTANCE.nanoseconds() < deadline) {
                DescribeQuorumResponse d = channel.describeQuorum(DescribeQuorumRequest.getDefaultInstance())
                    .get(60, TimeUnit.SECONDS);
                for (DescribeQuorumResponse.Peer p : d.getVotersList()) {
                    if (p.getId() == node && p.getLagEntries() == 0 && p.getLastContactMs() >= 0 && d.getCommitIndex() >= index) {
                        return;
                    }
                }
                Thread.sleep(50);
            }
            throw new IllegalStateException("node " + node + " did not catch up");
        }

        void start(int id) throws Exception {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> cmd = List.of(java, "-Xmx256m", "-XX:+UseG1GC",
                "-Dbench.electionMinMs=" + Long.getLong("bench.electionMinMs", 350),
                "-Dbench.electionMaxMs=" + Long.getLong("bench.electionMaxMs", 700), "-cp", System.getProperty("java.class.path"),
                QuorumFailoverBench.class.getName(), "node", Integer.toString(id), root.resolve("node-" + id).toString(),
                Integer.toString(ports.get(id)[0]), Integer.toString(ports.get(id)[1]), votersArg);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(root.resolve("node-" + id + ".out").toFile())).start();
            processes.put(id, p);
        }

        static void deleteTree(Path dir) throws IOException {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    new File(p.toString()).delete();
                }
            }
        }
    }
}
