package io.raftline.bench;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.BrokerDescription;
import io.raftline.client.admin.ElectionType;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.admin.TopicDescription;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.Node;
import io.raftline.client.common.serialization.ByteArraySerializer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.common.SystemTime;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.MetadataRequest;
import io.raftline.protocol.broker.MetadataResponse;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.tests.cluster.ProcessStats;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * How Raftline's costs grow with the number of partitions (issue 12 item 4): a 3-node combined cluster (real
 * processes through {@link TestCluster}) holding N partitions at RF 3 (topics of 10 partitions), measured at each N.
 *
 * <pre>
 *   mvn -B -ntp -o -q -DskipTests -pl tests -am verify
 *   mvn -B -ntp -o -q -pl tests dependency:build-classpath -Dmdep.outputFile=cp.txt
 *   CP=$(for m in tests data-plane metadata-quorum client-sdk admin-cli proto; do printf '%s:' $PWD/$m/target/classes; done)
 *   CP=$CP$(tr ':' '\n' &lt; cp.txt | grep -v /io/raftline/ | paste -sd:)     # this worktree's classes, not ~/.m2's
 *   java -Xmx512m -cp "$CP" io.raftline.bench.ScaleBench [sizes] [node heap] [records]
 *     # defaults: sizes 100,300,1000   node heap -Xmx1g   records 30000; about 12 minutes for the three sizes
 *   java -cp "$CP" io.raftline.bench.ScaleBench produce PARTITIONS "NODE_JVM_OPTIONS" RECORDS
 *     # only the produce figure, twice; with -Dscale.jfr=DIR the nodes record JFR (profile settings) from the
 *     # topic creation on and dump it to DIR/node-ID.jfr before the cluster goes
 * </pre>
 *
 * Per size it prints one JSON line, and at the end a markdown table with each figure and its cost per partition.
 * What each figure is, in the order they are taken:
 * <ul>
 *   <li>{@code createMs}: one CreateTopics call (broker 1's RPC) for all N/10 topics, until it returns (committed);
 *       {@code createAppliedMs}: from the same start until every broker's metadata image has applied that entry (the
 *       method of {@code propagationMs}, below); {@code settleMs}: until describe shows every partition with a leader
 *       and a full ISR.</li>
 *   <li>{@code propagationMs} (median of 5 probes, {@code propagationMaxMs} the largest): a 1-partition topic is
 *       created through broker 1's CreateTopics RPC, whose answer carries the Raft index of the committed entry;
 *       then each broker is asked in turn for metadata with {@code min_metadata_index} = that index — a broker
 *       answers as soon as its own image has applied that index (no polling; a broker whose few-second wait runs
 *       out is asked again). The figure is the time from the create answer (the commit is known) to the last
 *       broker's answer: it includes a loopback round trip. {@code commitMs} is the create call itself. A broker's
 *       image shows a change once its metadata thread starts applying it; the logs of new partitions are created
 *       after that, on the same thread (so a large create delays the next change, not this one).</li>
 *   <li>{@code produceRecPerSec}: the SDK producer, acks=all, 1 KiB values, {@code records} records spread round
 *       robin over every partition (at 1,000 partitions: 30 per partition), from the first send to the flush, after
 *       an untimed warm-up of a third as many.</li>
 *   <li>{@code heapUsedMb} (largest of the 3 nodes) after {@code jcmd GC.run}, from {@code jcmd GC.heap_info} (the
 *       generations, not metaspace); {@code vmHwmMb} the largest VmHWM of /proc/pid/status; {@code threads} and
 *       {@code fds} the largest thread and open-file counts.</li>
 *   <li>{@code stopMs}: the three nodes stopped one after the other (SIGTERM, each until its process exits: a clean
 *       shutdown flushes every log).</li>
 *   <li>{@code restartActiveMs} / {@code restartIsrMs}: all three nodes stopped (SIGTERM), then started again with
 *       their logs; from the process starts until every broker is active, and until every partition has a leader
 *       and a full ISR. {@code preferredElectionMs}: then a preferred-leader election of every partition, until
 *       describe shows each led by its first replica (a leadership change of about two thirds of them).</li>
 *   <li>{@code fenceMs} / {@code leadersMovedMs}: kill -9 of one broker that does not lead the metadata quorum;
 *       describe is polled every 50 ms until the broker is no longer active, and until no partition names it as
 *       leader (and every partition has a leader). {@code victimLeaders} is how many leaderships it held.</li>
 *   <li>{@code rejoinActiveMs} / {@code rejoinIsrMs}: the killed broker started again with all its logs; until it
 *       is active, and until it is in the ISR of every partition.</li>
 * </ul>
 * The node JVMs run as the test kit starts them ({@code -XX:+UseSerialGC -XX:TieredStopAtLevel=1}) with the heap
 * given. Not part of any test run.
 */
public final class ScaleBench {

    private static final int PARTITIONS_PER_TOPIC = 10;
    private static final int PROBES = 5;
    private static final Duration LONG = Duration.ofMinutes(5);

    private ScaleBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("produce")) {
            produceOnly(Integer.parseInt(args[1]), args[2], Integer.parseInt(args[3]));
            return;
        }
        int[] sizes = Arrays.stream((args.length > 0 ? args[0] : "100,300,1000").split(",")).mapToInt(Integer::parseInt)
            .toArray();
        String heap = args.length > 1 ? args[1] : "-Xmx1g";
        int records = args.length > 2 ? Integer.parseInt(args[2]) : 30_000;
        List<Map<String, Double>> results = new ArrayList<>();
        for (int size : sizes) {
            Map<String, Double> r = runOne(size, heap, records);
            results.add(r);
            System.out.println(json(r));
        }
        System.out.println(table(results));
    }

    /** Only the produce figure, for profiling it: {@code produce <partitions> <heap and JVM options> <records>}. */
    private static void produceOnly(int partitions, String nodeOptions, int records) throws Exception {
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < partitions / PARTITIONS_PER_TOPIC; i++) {
            topics.add("scale-" + i);
        }
        String jfrDir = System.getProperty("scale.jfr");
        try (TestCluster cluster = TestCluster.builder().combined(3).heap(nodeOptions).start()) {
            if (jfrDir != null) {
                for (TestNode node : cluster.nodes()) {
                    ProcessStats.jcmd(node.pid(), "JFR.start settings=profile name=scale\n");
                }
            }
            Admin admin = cluster.admin();
            admin.createTopics(topics.stream().map(t -> new NewTopic(t, PARTITIONS_PER_TOPIC, (short) 3)).toList()).all()
                .get(2, TimeUnit.MINUTES);
            awaitPartitions(admin, topics, "every partition led with a full ISR", p -> p.leader() != null && p.isr().size() == 3);
            for (int round = 0; round < 2; round++) {
                Map<String, Double> out = new LinkedHashMap<>();
                out.put("partitions", (double) partitions);
                produce(cluster, topics, records, out);
                System.out.println(json(out));
            }
            if (jfrDir != null) {
                for (TestNode node : cluster.nodes()) {
                    ProcessStats.jcmd(node.pid(), "JFR.dump name=scale filename=" + Path.of(jfrDir, "node-" + node.id() + ".jfr")
                        + "\n");
                }
            }
        }
    }

    private static Map<String, Double> runOne(int partitions, String heap, int records) throws Exception {
        if (partitions % PARTITIONS_PER_TOPIC != 0) {
            throw new IllegalArgumentException("partitions must be a multiple of " + PARTITIONS_PER_TOPIC + ": " + partitions);
        }
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("partitions", (double) partitions);
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < partitions / PARTITIONS_PER_TOPIC; i++) {
            topics.add("scale-" + i);
        }
        try (TestCluster cluster = TestCluster.builder().combined(3).heap(heap).start();
             BrokerStubs brokers = new BrokerStubs(cluster)) {
            Admin admin = cluster.admin();
            CreateTopicsRequest.Builder all = CreateTopicsRequest.newBuilder();
            topics.forEach(t -> all.addTopics(CreatableTopic.newBuilder().setName(t).setNumPartitions(PARTITIONS_PER_TOPIC)
                .setReplicationFactor(3)));
            long t0 = SystemTime.INSTANCE.nanoseconds();
            long index = brokers.create(all.build());
            out.put("createMs", ms(t0));
            brokers.awaitEveryImage(index, topics.get(topics.size() - 1));
            out.put("createAppliedMs", ms(t0));
            awaitPartitions(admin, topics, "every partition led with a full ISR", p -> p.leader() != null && p.isr().size() == 3);
            out.put("settleMs", ms(t0));

            propagation(cluster, brokers, out);
            produce(cluster, topics, records, out);
            footprint(cluster, out);

            t0 = SystemTime.INSTANCE.nanoseconds();
            for (TestNode node : cluster.nodes()) {
                node.stop(Duration.ofSeconds(60));
            }
            out.put("stopMs", ms(t0));
            t0 = SystemTime.INSTANCE.nanoseconds();
            for (TestNode node : cluster.nodes()) {
                node.start();
            }
            cluster.awaitBrokersActive(LONG);
            out.put("restartActiveMs", ms(t0));
            awaitPartitions(admin, topics, "every partition led with a full ISR after the restart",
                p -> p.leader() != null && p.isr().size() == 3);
            out.put("restartIsrMs", ms(t0));

            // After a full restart the first broker up leads nearly everything; spread the leaders back over their
            // preferred replicas, so the kill below takes about a third of them away.
            t0 = SystemTime.INSTANCE.nanoseconds();
            admin.electLeaders(ElectionType.PREFERRED, null).partitions().get(2, TimeUnit.MINUTES);
            awaitPartitions(admin, topics, "every partition led by its preferred replica",
                p -> p.leader() != null && p.leader().id() == p.replicas().get(0).id());
            out.put("preferredElectionMs", ms(t0));

            killAndRejoin(cluster, admin, topics, out);
        }
        return out;
    }

    /** One plaintext channel per broker, with a future stub on each. */
    private static final class BrokerStubs implements AutoCloseable {
        final List<ManagedChannel> channels = new ArrayList<>();
        final List<BrokerServiceGrpc.BrokerServiceFutureStub> stubs = new ArrayList<>();

        BrokerStubs(TestCluster cluster) {
            for (TestNode node : cluster.nodes()) {
                ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", node.brokerPort()).usePlaintext().build();
                channels.add(ch);
                stubs.add(BrokerServiceGrpc.newFutureStub(ch));
            }
        }

        /** CreateTopics through broker 1; fails unless every topic was created. Returns the entry's Raft index. */
        long create(CreateTopicsRequest request) throws Exception {
            CreateTopicsResponse created = stubs.get(0).createTopics(request).get(2, TimeUnit.MINUTES);
            if (created.getError().getCode() != ErrorCode.NONE
                || created.getTopicsList().stream().anyMatch(t -> t.getError().getCode() != ErrorCode.NONE)) {
                throw new IllegalStateException("create failed: " + created);
            }
            return created.getMetadataIndex();
        }

        /**
         * Asks every broker at once for {@code topic} with {@code min_metadata_index = index}: a broker answers as
         * soon as its image has applied that index, or after its read-your-writes wait ran out (then it is asked
         * again). Returns when the last broker answered from an image at that index or later.
         */
        long awaitEveryImage(long index, String topic) throws Exception {
            long last = 0;
            for (BrokerServiceGrpc.BrokerServiceFutureStub stub : stubs) {
                MetadataRequest request = MetadataRequest.newBuilder().addTopics(topic).setMinMetadataIndex(index).build();
                long deadline = SystemTime.INSTANCE.nanoseconds() + LONG.toNanos();
                while (true) {
                    MetadataResponse r = stub.metadata(request).get(1, TimeUnit.MINUTES);
                    long at = SystemTime.INSTANCE.nanoseconds();
                    if (r.getMetadataIndex() >= index) {
                        if (r.getTopicsCount() != 1 || r.getTopics(0).getError().getCode() != ErrorCode.NONE) {
                            throw new IllegalStateException("an image at index " + index + " lacks " + topic + ": " + r);
                        }
                        last = Math.max(last, at);
                        break;
                    }
                    if (at - deadline > 0) {
                        throw new IllegalStateException("a broker's image stayed below index " + index + ": " + r);
                    }
                }
            }
            return last;
        }

        @Override
        public void close() {
            channels.forEach(ManagedChannel::shutdownNow);
        }
    }

    /**
     * The create-to-every-image delay, {@link #PROBES} times (see the class comment). The brokers are asked in turn;
     * each request waits on its own broker's image, so a broker that got there earlier answers at once and the figure
     * is the slowest broker's plus at most a loopback round trip per broker.
     */
    private static void propagation(TestCluster cluster, BrokerStubs brokers, Map<String, Double> out) throws Exception {
        double[] propagation = new double[PROBES];
        double[] commit = new double[PROBES];
        for (int i = 0; i < PROBES; i++) {
            // A broker fenced meanwhile (a session missed on a loaded machine) would fail the RF-3 create.
            cluster.awaitBrokersActive(LONG);
            String name = "probe-" + i;
            long t0 = SystemTime.INSTANCE.nanoseconds();
            long index = brokers.create(CreateTopicsRequest.newBuilder().addTopics(
                CreatableTopic.newBuilder().setName(name).setNumPartitions(1).setReplicationFactor(3)).build());
            long t1 = SystemTime.INSTANCE.nanoseconds();
            long last = brokers.awaitEveryImage(index, name);
            commit[i] = (t1 - t0) / 1e6;
            propagation[i] = (last - t1) / 1e6;
        }
        Arrays.sort(propagation);
        Arrays.sort(commit);
        out.put("commitMs", commit[PROBES / 2]);
        out.put("propagationMs", propagation[PROBES / 2]);
        out.put("propagationMaxMs", propagation[PROBES - 1]);
    }

    private static void produce(TestCluster cluster, List<String> topics, int records, Map<String, Double> out)
        throws Exception {
        Properties props = cluster.clientProperties();
        props.setProperty("acks", "all");
        byte[] value = new byte[1024];
        Arrays.fill(value, (byte) 'x');
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (RaftlineProducer<byte[], byte[]> producer = new RaftlineProducer<>(props, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            // Warm-up (untimed): a third of the records, so the producer has its metadata and connections and the
            // brokers' produce and replication paths are compiled before the clock runs.
            for (int i = 0; i < Math.max(records / 3, topics.size() * PARTITIONS_PER_TOPIC); i++) {
                producer.send(new ProducerRecord<>(topics.get(i % topics.size()), (i / topics.size()) % PARTITIONS_PER_TOPIC,
                    null, value));
            }
            producer.flush();
            long t0 = SystemTime.INSTANCE.nanoseconds();
            for (int i = 0; i < records; i++) {
                int topic = i % topics.size();
                int partition = (i / topics.size()) % PARTITIONS_PER_TOPIC;
                producer.send(new ProducerRecord<>(topics.get(topic), partition, null, value), (m, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
            double seconds = (SystemTime.INSTANCE.nanoseconds() - t0) / 1e9;
            if (failure.get() != null) {
                throw new IllegalStateException("produce failed", failure.get());
            }
            out.put("produceRecPerSec", records / seconds);
        }
    }

    /** Heap after a full GC, peak RSS, threads and open files: the largest of the nodes. */
    private static void footprint(TestCluster cluster, Map<String, Double> out) throws Exception {
        double heap = 0;
        double hwm = 0;
        double threads = 0;
        double fds = 0;
        for (TestNode node : cluster.nodes()) {
            long pid = node.pid();
            long usedKb = ProcessStats.heapAfterGcKib(pid);
            heap = Math.max(heap, usedKb / 1024.0);
            hwm = Math.max(hwm, ProcessStats.status(pid, "VmHWM") / 1024.0);
            threads = Math.max(threads, ProcessStats.status(pid, "Threads"));
            fds = Math.max(fds, ProcessStats.openFiles(pid));
        }
        out.put("heapUsedMb", heap);
        out.put("vmHwmMb", hwm);
        out.put("threads", threads);
        out.put("fds", fds);
    }

    private static void killAndRejoin(TestCluster cluster, Admin admin, List<String> topics, Map<String, Double> out)
        throws Exception {
        int quorumLeader = admin.describeMetadataQuorum().quorumInfo().get(1, TimeUnit.MINUTES).leaderId();
        TestNode victim = cluster.nodes().stream().filter(n -> n.id() != quorumLeader)
            .reduce((a, b) -> b).orElseThrow();
        int id = victim.id();
        long led = describe(admin, topics).stream().filter(p -> p.leader() != null && p.leader().id() == id).count();
        out.put("victimLeaders", (double) led);
        long t0 = SystemTime.INSTANCE.nanoseconds();
        victim.kill();
        TestCluster.await(() -> brokerState(admin, id).map(s -> !s.equals("active")).orElse(false), LONG,
            "broker " + id + " to be fenced");
        out.put("fenceMs", ms(t0));
        awaitPartitions(admin, topics, "no partition led by broker " + id,
            p -> p.leader() != null && p.leader().id() != id);
        out.put("leadersMovedMs", ms(t0));

        t0 = SystemTime.INSTANCE.nanoseconds();
        victim.start();
        TestCluster.await(() -> brokerState(admin, id).map(s -> s.equals("active")).orElse(false), LONG,
            "broker " + id + " to be active again");
        out.put("rejoinActiveMs", ms(t0));
        awaitPartitions(admin, topics, "broker " + id + " in every ISR",
            p -> p.isr().stream().map(Node::id).anyMatch(n -> n == id));
        out.put("rejoinIsrMs", ms(t0));
    }

    private static Optional<String> brokerState(Admin admin, int id) {
        try {
            return admin.describeBrokers().get(10, TimeUnit.SECONDS).stream().filter(b -> b.id() == id)
                .map(BrokerDescription::state).findFirst();
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    private static void awaitPartitions(Admin admin, List<String> topics, String what, Predicate<TopicPartitionInfo> each) {
        TestCluster.await(() -> {
            try {
                List<TopicPartitionInfo> all = describe(admin, topics);
                return all.size() == topics.size() * PARTITIONS_PER_TOPIC && all.stream().allMatch(each);
            } catch (Exception e) {
                return false;
            }
        }, LONG, what);
    }

    private static List<TopicPartitionInfo> describe(Admin admin, Collection<String> topics) throws Exception {
        Map<String, TopicDescription> all = admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
        return all.values().stream().flatMap(d -> d.partitions().stream()).toList();
    }

    private static double ms(long startNanos) {
        return (SystemTime.INSTANCE.nanoseconds() - startNanos) / 1e6;
    }

    private static String json(Map<String, Double> r) {
        StringBuilder sb = new StringBuilder("{");
        r.forEach((k, v) -> sb.append(sb.length() > 1 ? "," : "").append('"').append(k).append("\":")
            .append(String.format(Locale.ROOT, "%.1f", v)));
        return sb.append('}').toString();
    }

    /** Each figure per size, then the figure divided by the partition count (the per-partition cost). */
    private static String table(List<Map<String, Double>> results) {
        StringBuilder sb = new StringBuilder("| figure |");
        for (Map<String, Double> r : results) {
            sb.append(' ').append(r.get("partitions").intValue()).append(" |");
        }
        for (Map<String, Double> r : results) {
            sb.append(" per partition @").append(r.get("partitions").intValue()).append(" |");
        }
        sb.append("\n|---|");
        sb.append("---|".repeat(results.size() * 2)).append('\n');
        for (String key : results.get(0).keySet()) {
            if (key.equals("partitions")) {
                continue;
            }
            sb.append("| ").append(key).append(" |");
            for (Map<String, Double> r : results) {
                sb.append(String.format(Locale.ROOT, " %.1f |", r.get(key)));
            }
            for (Map<String, Double> r : results) {
                sb.append(String.format(Locale.ROOT, " %.3f |", r.get(key) / r.get("partitions")));
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
