package io.raftline.kafkabench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Admin-API steps of the Kafka side of tests/scripts/side-by-side.py. Each mode prints one JSON line on stdout
 * and exits 0, or 1 when it failed, or 2 when its condition did not hold in time. Conditions are polled every 50 ms.
 *
 * <pre>
 * ready        BOOTSTRAP NODES TIMEOUT_MS                   NODES brokers registered and a quorum leader
 * create       BOOTSTRAP TOPIC PARTITIONS RF TIMEOUT_MS [K=V...]
 *                                                           create a topic; wait for a leader and a full ISR everywhere
 * create-seq   BOOTSTRAP PREFIX COUNT PARTITIONS RF         COUNT createTopics calls in a row, one topic each, each
 *                                                           awaited: topicsPerSec and the per-call latencies
 * create-seq   BOOTSTRAP PREFIX COUNT PARTITIONS RF CLIENTS as create-seq from CLIENTS admin clients at once (each its
 *                                                           own connection and thread, COUNT split between them)
 * create-many  BOOTSTRAP PREFIX TOPICS PARTITIONS RF TIMEOUT_MS
 *                                                           TOPICS topics of PARTITIONS (PREFIX0, PREFIX1, ...), 100 a
 *                                                           call, calls one after another: createMs until the last
 *                                                           call returned, settleMs until every partition has a
 *                                                           leader and a full ISR, logsMs until every broker holds
 *                                                           its replicas' logs (DescribeLogDirs: a broker that is
 *                                                           still creating them is not yet one to restart)
 * victim       BOOTSTRAP TOPIC controller|leader-not-controller [CONTROLLER]
 *                                                           the node a failover run kills: the active controller, or
 *                                                           the leader of the lowest partition not led by it
 *                                                           (CONTROLLER: the controller's id, where the cluster does
 *                                                           not answer DescribeQuorum)
 * wait-leaders BOOTSTRAP TOPIC NODE T0_EPOCH_MS TIMEOUT_MS  until every partition with a replica on another
 *                                                           node has a leader other than NODE
 * wait-isr     BOOTSTRAP TOPIC NODE T0_EPOCH_MS TIMEOUT_MS  until every partition with a replica on NODE has a
 *                                                           leader and NODE in its ISR (at RF 1: led by NODE again),
 *                                                           after the metadata first showed NODE leading none (fenced)
 * wait-control BOOTSTRAP TOPIC NODE T0_EPOCH_MS TIMEOUT_MS  after the controller NODE was killed: createMs, until a
 *                                                           topic of 1 partition RF 1 can be created again (a new
 *                                                           controller acts), and leadersMovedMs, as wait-leaders;
 *                                                           both watched at once
 * produce-spread BOOTSTRAP TOPIC RECORDS SIZE MAX_MS        RECORDS records of SIZE random bytes (acks=all,
 *                                                           linger.ms=5, the rest the producer's defaults), spread
 *                                                           over every partition of TOPIC one default batch's worth
 *                                                           (16 KiB) at a time in turn, as Kafka's sticky partitioner
 *                                                           moves on once a batch is full; sending stops after
 *                                                           MAX_MS: recordsPerSec (acked records over the time until
 *                                                           the last ack) and the ack latency
 * propagation BOOTSTRAP PREFIX PROBES RF                    PROBES topics of 1 partition (PREFIX0, ...) created one
 *                                                           after another; each timed from the createTopics call
 *                                                           until every broker's own Metadata answer (asked of each
 *                                                           broker directly, every millisecond) shows it led:
 *                                                           propagationMs p50/p99/max, and the createTopics call
 * </pre>
 *
 * The two wait modes report {@code ms}, the time from T0 until the condition held. A TOPIC ending in {@code *} stands
 * for every topic whose name starts with what comes before it.
 */
public final class BenchAdmin {

    private BenchAdmin() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: BenchAdmin MODE BOOTSTRAP ...");
            System.exit(1);
        }
        String mode = args[0];
        try (Admin admin = admin(args[1])) {
            switch (mode) {
                case "ready" -> ready(admin, Integer.parseInt(args[2]), Long.parseLong(args[3]));
                case "create" -> create(admin, args[2], Integer.parseInt(args[3]), Short.parseShort(args[4]),
                    Long.parseLong(args[5]), Arrays.copyOfRange(args, 6, args.length));
                case "create-seq" -> createSequence(args[1], admin, args[2], Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]), Short.parseShort(args[5]), args.length > 6 ? Integer.parseInt(args[6]) : 1);
                case "create-many" -> createMany(admin, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Short.parseShort(args[5]), Long.parseLong(args[6]));
                case "victim" -> victim(admin, args[2], args[3], args.length > 4 ? Integer.parseInt(args[4]) : null);
                case "wait-leaders", "wait-isr" -> waitFor(admin, mode.equals("wait-leaders"), args[2],
                    Integer.parseInt(args[3]), Long.parseLong(args[4]), Long.parseLong(args[5]));
                case "wait-control" -> waitControl(admin, args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]),
                    Long.parseLong(args[5]));
                case "produce-spread" -> produceSpread(args[1], admin, args[2], Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]), Long.parseLong(args[5]));
                case "propagation" -> propagation(admin, args[2], Integer.parseInt(args[3]), Short.parseShort(args[4]));
                default -> {
                    System.err.println("BenchAdmin: unknown mode " + mode);
                    System.exit(1);
                }
            }
        }
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "20");
        p.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "100");
        p.put(AdminClientConfig.METADATA_MAX_AGE_CONFIG, "500");
        return Admin.create(p);
    }

    private static void ready(Admin admin, int nodes, long timeoutMs) throws Exception {
        long t0 = System.currentTimeMillis();
        poll(timeoutMs, () -> {
            int brokers = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size();
            int controller = controller(admin);
            return brokers >= nodes && controller >= 0
                ? "{\"brokers\":" + brokers + ",\"controller\":" + controller + ",\"ms\":" + (System.currentTimeMillis() - t0) + "}"
                : null;
        });
    }

    private static void create(Admin admin, String topic, int partitions, short rf, long timeoutMs, String[] configs)
        throws Exception {
        Map<String, String> cfg = new HashMap<>();
        for (String kv : configs) {
            int eq = kv.indexOf('=');
            cfg.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        long t0 = System.currentTimeMillis();
        admin.createTopics(List.of(new NewTopic(topic, partitions, rf).configs(cfg))).all().get(timeoutMs, TimeUnit.MILLISECONDS);
        poll(timeoutMs, () -> {
            List<TopicPartitionInfo> ps = partitions(admin, topic);
            boolean full = ps.size() == partitions && ps.stream().allMatch(p -> leader(p) >= 0 && p.isr().size() == rf);
            return full ? "{\"topic\":\"" + topic + "\",\"ms\":" + (System.currentTimeMillis() - t0) + "}" : null;
        });
    }

    private static void createSequence(String bootstrap, Admin first, String prefix, int count, int partitions, short rf,
                                       int clients) throws Exception {
        List<Admin> admins = new ArrayList<>(List.of(first));
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        try {
            for (int c = 1; c < clients; c++) {
                admins.add(admin(bootstrap));
            }
            for (Admin a : admins) {
                a.listTopics().names().get(10, TimeUnit.SECONDS); // connected, with metadata, before the clock starts
            }
            long[] callNs = new long[count];
            long start = System.nanoTime();
            List<Future<?>> runs = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                Admin admin = admins.get(c);
                int from = c * count / clients;
                int to = (c + 1) * count / clients;
                runs.add(threads.submit(() -> {
                    for (int i = from; i < to; i++) {
                        long s = System.nanoTime();
                        admin.createTopics(List.of(new NewTopic(prefix + i, partitions, rf))).all().get(60, TimeUnit.SECONDS);
                        callNs[i] = System.nanoTime() - s;
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            Arrays.sort(callNs);
            System.out.printf(Locale.ROOT, "{\"topics\":%d,\"partitions\":%d,\"replicationFactor\":%d,\"clients\":%d,"
                    + "\"elapsedMs\":%.1f,\"topicsPerSec\":%.2f,\"perCallMs\":{\"avg\":%.2f,\"p50\":%.2f,\"p99\":%.2f,"
                    + "\"max\":%.2f}}%n",
                count, partitions, rf, clients, seconds * 1000, count / seconds,
                Arrays.stream(callNs).average().orElse(0) / 1e6, quantileMs(callNs, 0.5), quantileMs(callNs, 0.99),
                callNs[count - 1] / 1e6);
        } finally {
            threads.shutdownNow();
            for (Admin a : admins.subList(1, admins.size())) {
                a.close();
            }
        }
    }

    private static void createMany(Admin admin, String prefix, int topics, int partitions, short rf, long timeoutMs)
        throws Exception {
        long t0 = System.currentTimeMillis();
        for (int first = 0; first < topics; first += 100) {
            List<NewTopic> batch = new ArrayList<>();
            for (int i = first; i < Math.min(topics, first + 100); i++) {
                batch.add(new NewTopic(prefix + i, partitions, rf));
            }
            admin.createTopics(batch).all().get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        long createMs = System.currentTimeMillis() - t0;
        String settleMs = pollQuietly(timeoutMs, () -> {
            List<TopicPartitionInfo> ps = partitions(admin, prefix + "*");
            boolean full = ps.size() == topics * partitions
                && ps.stream().allMatch(p -> leader(p) >= 0 && p.isr().size() == rf);
            return full ? Long.toString(System.currentTimeMillis() - t0) : null;
        });
        long replicas = (long) topics * partitions * rf;
        poll(timeoutMs, () -> {
            List<Integer> brokers = admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).stream().map(Node::id).toList();
            long held = admin.describeLogDirs(brokers).allDescriptions().get(60, TimeUnit.SECONDS).values().stream()
                .flatMap(dirs -> dirs.values().stream())
                .flatMap(dir -> dir.replicaInfos().keySet().stream())
                .filter(tp -> tp.topic().startsWith(prefix))
                .count();
            return held == replicas ? "{\"topics\":" + topics + ",\"partitions\":" + topics * partitions
                + ",\"createMs\":" + createMs + ",\"settleMs\":" + settleMs + ",\"logsMs\":"
                + (System.currentTimeMillis() - t0) + "}" : null;
        });
    }

    private static void victim(Admin admin, String topic, String policy, Integer knownController) throws Exception {
        int controller = knownController != null ? knownController : controller(admin);
        List<TopicPartitionInfo> ps = partitions(admin, topic);
        int victim = -1;
        if (policy.equals("controller")) {
            victim = controller;
        } else {
            for (TopicPartitionInfo p : ps) {
                if (leader(p) >= 0 && leader(p) != controller) {
                    victim = leader(p);
                    break;
                }
            }
        }
        if (victim < 0) {
            System.out.println("{\"error\":\"no node to kill for policy " + policy + "\"}");
            System.exit(1);
        }
        List<String> leaders = new ArrayList<>();
        int leads = 0;
        for (TopicPartitionInfo p : ps) {
            leaders.add(Integer.toString(leader(p)));
            leads += leader(p) == victim ? 1 : 0;
        }
        System.out.println("{\"victim\":" + victim + ",\"controller\":" + controller + ",\"victimLeads\":" + leads
            + ",\"leaders\":[" + String.join(",", leaders) + "]}");
    }

    private static void waitFor(Admin admin, boolean leaders, String topic, int node, long t0, long timeoutMs)
        throws Exception {
        // wait-isr: the metadata must first have shown NODE leading none of its partitions (it was fenced). At RF 1
        // nothing moves before the restart, and a cluster that notices the death only when the session runs out
        // (Kafka's 9 s) still shows NODE as their leader, and in their ISR, right after the restart: that is not a
        // rejoin yet.
        AtomicBoolean fenced = new AtomicBoolean(leaders);
        poll(timeoutMs, () -> {
            List<TopicPartitionInfo> all = partitions(admin, topic);
            if (!fenced.get() && all.stream().noneMatch(p -> hosts(p, node) && leader(p) == node)) {
                fenced.set(true);
            }
            if (!fenced.get()) {
                return null;
            }
            for (TopicPartitionInfo p : all) {
                boolean holds = leaders ? movedOff(p, node)
                    : !hosts(p, node) || leader(p) >= 0 && p.isr().stream().anyMatch(n -> n.id() == node);
                if (!holds) {
                    return null;
                }
            }
            long ms = System.currentTimeMillis() - t0;
            return leaders ? "{\"ms\":" + ms + ",\"controller\":" + controllerOrUnknown(admin) + "}" : "{\"ms\":" + ms + "}";
        });
    }

    private static void waitControl(Admin admin, String topic, int node, long t0, long timeoutMs) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            String probe = "control-probe-" + t0;
            Future<String> created = threads.submit(() -> pollQuietly(timeoutMs, () -> {
                try {
                    admin.createTopics(List.of(new NewTopic(probe, 1, (short) 1))).all().get(3, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) { // an earlier try took effect after its timeout
                        throw e;
                    }
                }
                return Long.toString(System.currentTimeMillis() - t0);
            }));
            Future<String> moved = threads.submit(() -> pollQuietly(timeoutMs, () -> {
                for (TopicPartitionInfo p : partitions(admin, topic)) {
                    if (!movedOff(p, node)) {
                        return null;
                    }
                }
                return Long.toString(System.currentTimeMillis() - t0);
            }));
            System.out.println("{\"createMs\":" + created.get() + ",\"leadersMovedMs\":" + moved.get()
                + ",\"controller\":" + controllerOrUnknown(admin) + "}");
        } finally {
            threads.shutdownNow();
        }
    }

    private static void produceSpread(String bootstrap, Admin admin, String topic, int records, int size, long maxMs)
        throws Exception {
        List<TopicPartition> targets = new ArrayList<>();
        describe(admin, topic).forEach((name, ps) -> ps.forEach(tp -> targets.add(new TopicPartition(name, tp.partition()))));
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        int perBatch = Math.max(1, 16384 / (size + 70)); // a record's overhead in a batch is under 70 bytes
        byte[] value = new byte[size];
        new SplittableRandom(size).nextBytes(value);
        long[] ackNs = new long[records];
        AtomicLong errors = new AtomicLong();
        AtomicLong lastAck = new AtomicLong();
        int sent = 0;
        long start;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.partitionsFor(targets.get(0).topic()); // metadata before the clock starts
            start = System.nanoTime();
            long stopAt = start + maxMs * 1_000_000;
            for (; sent < records && System.nanoTime() < stopAt; sent++) {
                TopicPartition tp = targets.get((sent / perBatch) % targets.size());
                long sentNs = System.nanoTime();
                int n = sent;
                producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, value), (md, e) -> {
                    long now = System.nanoTime();
                    ackNs[n] = now - sentNs;
                    lastAck.accumulateAndGet(now, Math::max);
                    if (e != null) {
                        errors.incrementAndGet();
                    }
                });
            }
            producer.flush();
        }
        double seconds = (lastAck.get() - start) / 1e9;
        long[] acked = Arrays.copyOf(ackNs, sent);
        Arrays.sort(acked);
        System.out.printf(Locale.ROOT, "{\"records\":%d,\"partitions\":%d,\"recordsPerBatch\":%d,\"recordsPerSec\":%.1f,"
                + "\"mbPerSec\":%.2f,\"latencyMs\":{\"avg\":%.2f,\"p50\":%.2f,\"p99\":%.2f,\"max\":%.2f},"
                + "\"errors\":%d}%n",
            sent, targets.size(), perBatch, sent / seconds, (double) sent * size / seconds / (1024 * 1024),
            Arrays.stream(acked).average().orElse(0) / 1e6, quantileMs(acked, 0.5), quantileMs(acked, 0.99),
            acked[sent - 1] / 1e6, errors.get());
    }

    /**
     * Metadata propagation: the time from a createTopics call until every broker knows the new topic's leader, each
     * broker asked on its own connection (the Admin client would send Metadata to whichever node it likes).
     */
    private static void propagation(Admin admin, String prefix, int probes, short rf) throws Exception {
        List<BrokerMetadata> brokers = new ArrayList<>();
        for (Node n : admin.describeCluster().nodes().get(10, TimeUnit.SECONDS)) {
            brokers.add(new BrokerMetadata(n.host(), n.port()));
        }
        long[] createNs = new long[probes];
        long[] propagationNs = new long[probes];
        try {
            for (int i = 0; i < probes; i++) {
                String topic = prefix + i;
                long t0 = System.nanoTime();
                admin.createTopics(List.of(new NewTopic(topic, 1, rf))).all().get(30, TimeUnit.SECONDS);
                createNs[i] = System.nanoTime() - t0;
                List<BrokerMetadata> waiting = new ArrayList<>(brokers);
                long deadline = t0 + TimeUnit.SECONDS.toNanos(60);
                while (!waiting.isEmpty()) {
                    waiting.removeIf(b -> b.leads(topic));
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(waiting.size() + " broker(s) never showed " + topic + " led");
                    }
                    if (!waiting.isEmpty()) {
                        Thread.sleep(1);
                    }
                }
                propagationNs[i] = System.nanoTime() - t0;
            }
        } finally {
            for (BrokerMetadata b : brokers) {
                b.close();
            }
        }
        Arrays.sort(createNs);
        Arrays.sort(propagationNs);
        System.out.printf(Locale.ROOT, "{\"probes\":%d,\"brokers\":%d,\"propagationMs\":{\"p50\":%.1f,\"p99\":%.1f,"
                + "\"max\":%.1f},\"createMs\":{\"p50\":%.1f,\"p99\":%.1f}}%n", probes, brokers.size(),
            quantileMs(propagationNs, 0.5), quantileMs(propagationNs, 0.99), propagationNs[probes - 1] / 1e6,
            quantileMs(createNs, 0.5), quantileMs(createNs, 0.99));
    }

    /** One broker's Metadata over a connection of its own, in Kafka's protocol (request v12). */
    private static final class BrokerMetadata implements AutoCloseable {
        private static final short VERSION = 12;
        private final Socket socket;
        private final DataOutputStream out;
        private final DataInputStream in;
        private int correlation;

        BrokerMetadata(String host, int port) throws IOException {
            socket = new Socket(host, port);
            socket.setTcpNoDelay(true);
            out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        }

        /** Whether this broker's Metadata shows {@code topic} with a leader for each of its partitions. */
        boolean leads(String topic) {
            try {
                MetadataRequestData data = new MetadataRequestData().setAllowAutoTopicCreation(false)
                    .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic)));
                ByteBuffer request = new MetadataRequest(data, VERSION).serializeWithHeader(
                    new RequestHeader(ApiKeys.METADATA, VERSION, "bench-propagation", ++correlation));
                out.writeInt(request.remaining());
                out.write(request.array(), request.arrayOffset() + request.position(), request.remaining());
                out.flush();
                byte[] answer = new byte[in.readInt()];
                in.readFully(answer);
                ByteBuffer buffer = ByteBuffer.wrap(answer);
                ResponseHeader.parse(buffer, ApiKeys.METADATA.responseHeaderVersion(VERSION));
                MetadataResponseData r = new MetadataResponseData(new ByteBufferAccessor(buffer), VERSION);
                return r.topics().stream().anyMatch(t -> t.name().equals(topic) && t.errorCode() == 0
                    && !t.partitions().isEmpty() && t.partitions().stream().allMatch(p -> p.leaderId() >= 0));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** Polls until the check returns its JSON line (printed); a check that throws is retried (a node is down). */
    private static void poll(long timeoutMs, Callable<String> check) throws InterruptedException {
        System.out.println(pollQuietly(timeoutMs, check));
    }

    /** As {@link #poll}, returning what the check returned instead of printing it. */
    private static String pollQuietly(long timeoutMs, Callable<String> check) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        Exception last = null;
        while (System.currentTimeMillis() < deadline) {
            try {
                String line = check.call();
                if (line != null) {
                    return line;
                }
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(50);
        }
        String why = last == null ? "" : last.toString().replace('"', '\'').replace('\\', '/');
        System.out.println("{\"timeout\":true,\"timeoutMs\":" + timeoutMs + ",\"last\":\"" + why + "\"}");
        System.exit(2);
        return null;
    }

    /** The partitions of {@code topic}, or with a trailing '*' of every topic named so, by topic then number. */
    private static List<TopicPartitionInfo> partitions(Admin admin, String topic) throws Exception {
        return describe(admin, topic).values().stream().flatMap(List::stream).toList();
    }

    /** As {@link #partitions}, each topic's partitions under its name, the names in order. */
    private static Map<String, List<TopicPartitionInfo>> describe(Admin admin, String topic) throws Exception {
        List<String> names = topic.endsWith("*")
            ? admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                .filter(n -> n.startsWith(topic.substring(0, topic.length() - 1))).sorted().toList()
            : List.of(topic);
        Map<String, org.apache.kafka.clients.admin.TopicDescription> all =
            admin.describeTopics(names).allTopicNames().get(60, TimeUnit.SECONDS);
        Map<String, List<TopicPartitionInfo>> byName = new LinkedHashMap<>();
        for (String name : names) {
            List<TopicPartitionInfo> own = new ArrayList<>(all.get(name).partitions());
            own.sort(Comparator.comparingInt(TopicPartitionInfo::partition));
            byName.put(name, own);
        }
        return byName;
    }

    private static boolean hosts(TopicPartitionInfo p, int node) {
        return p.replicas().stream().anyMatch(n -> n.id() == node);
    }

    /**
     * Whether the partition is led by a node other than {@code node}, or cannot be: it has no replica elsewhere (at
     * RF 1 a dead node's partitions have nowhere to move).
     */
    private static boolean movedOff(TopicPartitionInfo p, int node) {
        boolean canMove = p.replicas().stream().anyMatch(n -> n.id() != node);
        return !canMove || leader(p) >= 0 && leader(p) != node;
    }

    private static int leader(TopicPartitionInfo p) {
        Node n = p.leader();
        return n == null || n.isEmpty() ? -1 : n.id();
    }

    /** The quorum leader, or -1 where the cluster does not answer DescribeQuorum (Raftline's Kafka listeners). */
    private static int controllerOrUnknown(Admin admin) {
        try {
            return controller(admin);
        } catch (Exception e) {
            return -1;
        }
    }

    private static int controller(Admin admin) throws Exception {
        return admin.describeMetadataQuorum().quorumInfo().get(5, TimeUnit.SECONDS).leaderId();
    }

    private static double quantileMs(long[] sortedNs, double q) {
        int i = (int) Math.ceil(sortedNs.length * q) - 1;
        return sortedNs[Math.max(0, Math.min(sortedNs.length - 1, i))] / 1e6;
    }
}
