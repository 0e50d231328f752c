package io.raftline.tests.overload;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.common.serialization.ByteArraySerializer;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.common.SystemTime;
import io.raftline.tests.cluster.ProcessStats;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Overload of one broker (issue 12, item 5): many producers at full speed against a single node with a small heap,
 * and a consumer reading from the beginning far slower than they write. Measures whether the broker runs out of
 * memory or stalls, and how it pushes back: the producers' throughput, the longest gap between two acknowledgements,
 * the errors the producers got, the broker's heap peak (from its GC log), its peak RSS ({@code VmHWM}) and the most
 * produce requests and bytes it held at once (its {@code raftline_produce_queued_*} gauges).
 *
 * <p>{@code java -cp <tests classpath> io.raftline.tests.overload.OverloadRun --producers 50 --seconds 60} prints one
 * JSON line. The broker is a real process ({@link TestCluster}), started with {@code raftline.dist}'s classpath.
 */
public final class OverloadRun {

    /** What to run. */
    public record Settings(int producers, int partitions, int recordBytes, Duration duration, String brokerHeap,
                           long producerBufferBytes, long consumerPollPeriodMs, Map<String, String> brokerConfig) {
    }

    /** What was measured. */
    public record Result(int producers, long acked, long failed, Map<String, Long> errors, double recordsPerSec,
                         double mibPerSec, long maxAckGapMs, long heapPeakMib, long gcCount, long vmHwmKib,
                         boolean brokerAlive, boolean outOfMemory, long consumed, int maxQueuedRequests,
                         long maxQueuedBytes, int maxStreamsWaiting) {

        public String toJson() {
            StringBuilder errs = new StringBuilder("{");
            errors.forEach((k, v) -> errs.append(errs.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
            errs.append('}');
            return String.format(java.util.Locale.ROOT, "{\"producers\":%d,\"acked\":%d,\"failed\":%d,\"errors\":%s,"
                    + "\"recordsPerSec\":%.0f,\"mibPerSec\":%.1f,\"maxAckGapMs\":%d,\"heapPeakMiB\":%d,\"gcCount\":%d,"
                    + "\"vmHwmKiB\":%d,\"brokerAlive\":%b,\"outOfMemory\":%b,\"consumed\":%d,\"maxQueuedRequests\":%d,"
                    + "\"maxQueuedBytes\":%d,\"maxStreamsWaiting\":%d}",
                producers, acked, failed, errs, recordsPerSec, mibPerSec, maxAckGapMs, heapPeakMib, gcCount, vmHwmKib,
                brokerAlive, outOfMemory, consumed, maxQueuedRequests, maxQueuedBytes, maxStreamsWaiting);
        }
    }

    private static final String TOPIC = "overload";
    private static final Pattern GC_LINE = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");

    private OverloadRun() {
    }

    public static Result run(Settings s) throws Exception {
        Path gcLog = Files.createTempFile("raftline-overload-gc-", ".log");
        String heap = s.brokerHeap() + " -Xlog:gc:file=" + gcLog;
        TestCluster.Builder builder = TestCluster.builder().combined(1).heap(heap)
            .config("default.replication.factor", "1").config("offsets.topic.replication.factor", "1");
        s.brokerConfig().forEach(builder::config);
        try (TestCluster cluster = builder.start()) {
            TestNode broker = cluster.node(1);
            Properties base = new Properties();
            base.setProperty("bootstrap.servers", cluster.bootstrap());
            try (Admin admin = Admin.create(base)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, s.partitions(), (short) 1))).all().get();
            }
            return drive(s, broker, base, gcLog);
        } finally {
            Files.deleteIfExists(gcLog);
        }
    }

    private static Result drive(Settings s, TestNode broker, Properties base, Path gcLog) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder acked = new LongAdder();
        LongAdder failed = new LongAdder();
        LongAdder consumed = new LongAdder();
        Map<String, LongAdder> errors = new ConcurrentHashMap<>();
        AtomicLong lastAckNs = new AtomicLong(SystemTime.INSTANCE.nanoseconds());
        AtomicLong maxGapNs = new AtomicLong();
        long[] maxQueued = new long[3];
        byte[] payload = new byte[s.recordBytes()];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) ('a' + i % 26);
        }
        List<Thread> producers = new ArrayList<>();
        List<RaftlineProducer<byte[], byte[]>> clients = new ArrayList<>();
        for (int p = 0; p < s.producers(); p++) {
            Properties props = new Properties();
            props.putAll(base);
            props.setProperty("buffer.memory", Long.toString(s.producerBufferBytes()));
            props.setProperty("linger.ms", "5");
            props.setProperty("max.block.ms", "5000");
            props.setProperty("delivery.timeout.ms", "30000");
            props.setProperty("request.timeout.ms", "15000");
            RaftlineProducer<byte[], byte[]> producer = new RaftlineProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer());
            clients.add(producer);
            Thread t = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        producer.send(new ProducerRecord<>(TOPIC, null, payload), (md, e) -> {
                            if (e == null) {
                                // Gaps count from the first acknowledgement: connecting 50 clients is not a stall.
                                long now = SystemTime.INSTANCE.nanoseconds();
                                long gap = now - lastAckNs.getAndSet(now);
                                if (acked.sum() > 0) {
                                    maxGapNs.accumulateAndGet(gap, Math::max);
                                }
                                acked.increment();
                            } else {
                                failed.increment();
                                errors.computeIfAbsent(e.getClass().getSimpleName(), k -> new LongAdder()).increment();
                            }
                        });
                    } catch (RuntimeException e) {
                        errors.computeIfAbsent("send:" + e.getClass().getSimpleName(), k -> new LongAdder()).increment();
                    }
                }
            }, "overload-producer-" + p);
            t.setDaemon(true);
            producers.add(t);
        }

        // A consumer far behind: from the beginning, one poll every consumerPollPeriodMs.
        Properties cprops = new Properties();
        cprops.putAll(base);
        RaftlineConsumer<byte[], byte[]> consumer = new RaftlineConsumer<>(cprops, new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < s.partitions(); p++) {
            tps.add(new TopicPartition(TOPIC, p));
        }
        consumer.assign(tps);
        consumer.seekToBeginning(tps);
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
        timers.scheduleWithFixedDelay(() -> {
            if (!stop.get()) {
                consumed.add(consumer.poll(Duration.ofMillis(100)).count());
            }
        }, 0, s.consumerPollPeriodMs(), TimeUnit.MILLISECONDS);
        timers.scheduleWithFixedDelay(() -> sampleQueues(broker, maxQueued), 0, 250, TimeUnit.MILLISECONDS);

        long startNs = SystemTime.INSTANCE.nanoseconds();
        lastAckNs.set(startNs);
        producers.forEach(Thread::start);
        long deadline = startNs + s.duration().toNanos();
        while (SystemTime.INSTANCE.nanoseconds() < deadline && broker.isRunning()) {
            TimeUnit.MILLISECONDS.sleep(200);
        }
        long elapsedNs = SystemTime.INSTANCE.nanoseconds() - startNs;
        long ackedAtEnd = acked.sum();
        // Failures counted up to here: closing the producers below fails what they still buffer, which is not the
        // broker's doing.
        long failedAtEnd = failed.sum();
        Map<String, Long> errorCounts = new TreeMap<>();
        errors.forEach((k, v) -> errorCounts.put(k, v.sum()));
        // The longest gap includes the one still open at the end: a broker that stopped answering shows here.
        maxGapNs.accumulateAndGet(SystemTime.INSTANCE.nanoseconds() - lastAckNs.get(), Math::max);
        stop.set(true);
        for (Thread t : producers) {
            t.join(10_000);
        }
        timers.shutdownNow();
        timers.awaitTermination(10, TimeUnit.SECONDS);
        consumer.close();
        long vmHwm = ProcessStats.status(broker.pid(), "VmHWM");
        boolean alive = broker.isRunning();
        for (RaftlineProducer<byte[], byte[]> producer : clients) {
            producer.close(Duration.ZERO);
        }
        long[] gc = heapPeak(gcLog);
        boolean oom = logsMention(broker, "OutOfMemoryError");
        double seconds = elapsedNs / 1e9;
        return new Result(s.producers(), ackedAtEnd, failedAtEnd, errorCounts, ackedAtEnd / seconds,
            ackedAtEnd * (double) s.recordBytes() / seconds / (1 << 20), TimeUnit.NANOSECONDS.toMillis(maxGapNs.get()), gc[0],
            gc[1], vmHwm, alive, oom, consumed.sum(), (int) maxQueued[0], maxQueued[1], (int) maxQueued[2]);
    }

    private static void sampleQueues(TestNode broker, long[] max) {
        try {
            String metrics = broker.scrapeMetrics();
            String[] names = {"raftline_produce_queued_requests ", "raftline_produce_queued_bytes ",
                "raftline_produce_streams_waiting "};
            for (String line : metrics.split("\n")) {
                for (int i = 0; i < names.length; i++) {
                    if (line.startsWith(names[i])) {
                        long v = (long) Double.parseDouble(line.substring(names[i].length()).trim());
                        synchronized (max) {
                            max[i] = Math.max(max[i], v);
                        }
                    }
                }
            }
        } catch (UncheckedIOException e) {
            // a slow scrape under load: the next sample counts
        }
    }

    /** The largest heap occupancy before a collection in the GC log (MiB) and the number of collections. */
    static long[] heapPeak(Path gcLog) throws IOException {
        long peak = 0;
        long count = 0;
        if (!Files.exists(gcLog)) {
            return new long[] {-1, 0};
        }
        for (String line : Files.readAllLines(gcLog, StandardCharsets.UTF_8)) {
            Matcher m = GC_LINE.matcher(line);
            if (m.find()) {
                peak = Math.max(peak, Long.parseLong(m.group(1)));
                count++;
            }
        }
        return new long[] {peak, count};
    }

    private static boolean logsMention(TestNode node, String text) throws IOException {
        for (Path log : List.of(node.logFile(), node.logFile().resolveSibling("console.out"))) {
            if (Files.exists(log) && Files.readString(log, StandardCharsets.ISO_8859_1).contains(text)) {
                return true;
            }
        }
        return false;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>();
        opts.put("--producers", "50");
        opts.put("--partitions", "6");
        opts.put("--record-bytes", "1024");
        opts.put("--seconds", "60");
        opts.put("--heap", "-Xmx512m");
        opts.put("--producer-buffer-bytes", Integer.toString(4 << 20));
        opts.put("--consumer-poll-ms", "500");
        Map<String, String> brokerConfig = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--config")) {
                String[] kv = args[i + 1].split("=", 2);
                brokerConfig.put(kv[0], kv[1]);
            } else if (opts.containsKey(args[i])) {
                opts.put(args[i], args[i + 1]);
            } else {
                throw new IllegalArgumentException("unknown option " + args[i] + "; known: " + opts.keySet() + ", --config k=v");
            }
        }
        Settings s = new Settings(Integer.parseInt(opts.get("--producers")), Integer.parseInt(opts.get("--partitions")),
            Integer.parseInt(opts.get("--record-bytes")), Duration.ofSeconds(Long.parseLong(opts.get("--seconds"))),
            opts.get("--heap"), Long.parseLong(opts.get("--producer-buffer-bytes")),
            Long.parseLong(opts.get("--consumer-poll-ms")), brokerConfig);
        System.out.println(run(s).toJson());
    }
}
