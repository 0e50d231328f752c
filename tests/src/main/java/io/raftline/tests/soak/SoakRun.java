package io.raftline.tests.soak;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.common.serialization.ByteArraySerializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.common.SystemTime;
import io.raftline.tests.cluster.ProcessStats;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * A soak (issue 24, item 8): a 3-node cluster under acks=all produce at half the rate it can take, with a consumer
 * reading a fixed time behind the producer, for a long time. The maximum is measured first, on the same cluster,
 * topic and producer. Every window the run records, per node, the resident memory ({@code VmRSS}), the heap after a
 * full collection ({@code jcmd GC.run}, then {@code GC.heap_info}) and the open files ({@code /proc/PID/fd}), and for
 * the producer the acknowledged records and the send-to-acknowledgement latency percentiles; the topic's retention is
 * small enough that segments are deleted throughout, so files and memory must reach a plateau. At the end the consumer
 * catches up and every acknowledged offset must have been read.
 *
 * <p>The windows go to {@code out/soak.jsonl} (one JSON object per window) and {@code out/soak.svg} (a plot, {@link
 * SoakPlot}). {@code SoakIT} runs a short one in the default suite and the hour behind {@code --system}.
 */
public final class SoakRun {

    /** What to run. */
    public record Settings(int partitions, int recordBytes, Duration calibrate, Duration duration, Duration window,
                           Duration consumerBehind, long segmentBytes, long retentionBytes, long fileDeleteDelayMs,
                           String heap, long seed, Path out) {
    }

    /** One node's sample at the end of a window. */
    public record NodeSample(int id, double rssMiB, double heapAfterGcMiB, int openFiles) {
    }

    /** One window of the soak. */
    public record Window(int index, double endSeconds, long acked, double ackedPerSec, double p50Ms, double p99Ms,
                         double p999Ms, double maxMs, long consumed, long consumerBehindRecords, List<NodeSample> nodes) {
    }

    /** The whole run. */
    public record Result(double maxPerSec, double targetPerSec, long acked, long failed, long consumed,
                         long ackedNeverRead, List<Window> windows) {

        /** One series per node ({@code "node 1"} ...) of {@code metric}, one value per window, in window order. */
        public Map<String, double[]> nodeSeries(ToDoubleFunction<NodeSample> metric) {
            Map<String, double[]> out = new java.util.TreeMap<>();
            for (int w = 0; w < windows.size(); w++) {
                for (NodeSample n : windows.get(w).nodes()) {
                    out.computeIfAbsent("node " + n.id(), k -> new double[windows.size()])[w] = metric.applyAsDouble(n);
                }
            }
            return out;
        }
    }

    private static final String TOPIC = "soak";
    private static final ObjectMapper JSON = new ObjectMapper();

    private SoakRun() {
    }

    public static Result run(Settings s) throws Exception {
        Files.createDirectories(s.out());
        TestCluster.Builder builder = TestCluster.builder().combined(3).heap(s.heap())
            .config("log.retention.check.interval.ms", "2000");
        try (TestCluster cluster = builder.start()) {
            Properties base = new Properties();
            base.setProperty("bootstrap.servers", cluster.bootstrap());
            try (Admin admin = Admin.create(base)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, s.partitions(), (short) 3).configs(Map.of(
                    "segment.bytes", Long.toString(s.segmentBytes()), "retention.bytes", Long.toString(s.retentionBytes()),
                    "min.insync.replicas", "2", "file.delete.delay.ms", Long.toString(s.fileDeleteDelayMs()))))).all().get();
            }
            return new Driver(s, cluster, base).drive();
        }
    }

    /** The producer, the consumer and the sampler of one run. */
    private static final class Driver {
        private final Settings s;
        private final TestCluster cluster;
        private final Properties base;
        private final BitSet[] acked;
        private final BitSet[] read;
        private final LongAdder ackedCount = new LongAdder();
        private final LongAdder failed = new LongAdder();
        private final LongAdder consumed = new LongAdder();
        /** Offsets read at least once: a record read twice (it should not be) counts once here. */
        private final LongAdder readDistinct = new LongAdder();
        private final Recorder latency = new Recorder(3);
        private final AtomicBoolean stopConsumer = new AtomicBoolean();
        /** Set once the producer has sent its last record: the consumer then reads to the end without waiting. */
        private volatile boolean producerDone;
        private final AtomicReference<Throwable> consumerError = new AtomicReference<>();
        private final byte[] value;
        private final SplittableRandom random;

        Driver(Settings s, TestCluster cluster, Properties base) {
            this.s = s;
            this.cluster = cluster;
            this.base = base;
            this.acked = new BitSet[s.partitions()];
            this.read = new BitSet[s.partitions()];
            for (int p = 0; p < s.partitions(); p++) {
                acked[p] = new BitSet();
                read[p] = new BitSet();
            }
            this.value = new byte[s.recordBytes()];
            this.random = new SplittableRandom(s.seed());
        }

        Result drive() throws Exception {
            Properties pp = new Properties();
            pp.putAll(base);
            pp.setProperty("acks", "all");
            pp.setProperty("linger.ms", "5");
            pp.setProperty("batch.size", Integer.toString(64 * 1024));
            pp.setProperty("delivery.timeout.ms", "120000");
            Thread consumer = new Thread(this::consume, "soak-consumer");
            consumer.setDaemon(true);
            consumer.start();
            List<Window> windows;
            double maxPerSec;
            double target;
            try (RaftlineProducer<byte[], byte[]> producer = new RaftlineProducer<>(pp, new ByteArraySerializer(),
                new ByteArraySerializer())) {
                // the maximum: as fast as the producer can send for the calibration time, the consumer reading too
                long before = ackedCount.sum();
                long start = SystemTime.INSTANCE.nanoseconds();
                long end = start + s.calibrate().toNanos();
                while (SystemTime.INSTANCE.nanoseconds() < end) {
                    send(producer);
                }
                producer.flush();
                maxPerSec = (ackedCount.sum() - before) * 1e9 / (SystemTime.INSTANCE.nanoseconds() - start);
                target = maxPerSec / 2;
                System.out.printf("SoakRun: maximum %.0f records/s over %d s; soaking at %.0f records/s for %d s%n",
                    maxPerSec, s.calibrate().toSeconds(), target, s.duration().toSeconds());
                latency.reset();
                windows = soak(producer, target);
                producer.flush();
            } finally {
                producerDone = true;
            }
            long ackedAtEnd = ackedCount.sum();
            TestCluster.await(() -> readDistinct.sum() >= ackedAtEnd || consumerError.get() != null, Duration.ofMinutes(5),
                "the consumer to read the " + ackedAtEnd + " acknowledged records");
            stopConsumer.set(true);
            consumer.join(30_000);
            if (consumerError.get() != null) {
                throw new IllegalStateException("the soak's consumer failed", consumerError.get());
            }
            long neverRead = 0;
            for (int p = 0; p < s.partitions(); p++) {
                synchronized (acked[p]) {
                    BitSet missing = (BitSet) acked[p].clone();
                    synchronized (read[p]) {
                        missing.andNot(read[p]);
                    }
                    neverRead += missing.cardinality();
                }
            }
            Result result = new Result(maxPerSec, target, ackedAtEnd, failed.sum(), consumed.sum(), neverRead, windows);
            Files.writeString(s.out().resolve("soak.svg"), SoakPlot.svg(result), StandardCharsets.UTF_8);
            return result;
        }

        /**
         * Sends at {@code perSec} for the soak's duration; a thread of its own samples each window at its end, so the
         * sampling (a few hundred milliseconds of {@code jcmd}) never holds the sends back.
         */
        private List<Window> soak(RaftlineProducer<byte[], byte[]> producer, double perSec) throws Exception {
            Path jsonl = s.out().resolve("soak.jsonl");
            Files.deleteIfExists(jsonl);
            long windowNs = s.window().toNanos();
            int count = (int) (s.duration().toNanos() / windowNs);
            long start = SystemTime.INSTANCE.nanoseconds();
            long end = start + count * windowNs;
            WindowSampler sampling = new WindowSampler(start, count, jsonl);
            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "soak-sampler");
                t.setDaemon(true);
                return t;
            });
            sampler.scheduleAtFixedRate(sampling, windowNs, windowNs, TimeUnit.NANOSECONDS);
            try {
                long sent = 0;
                long now;
                while ((now = SystemTime.INSTANCE.nanoseconds()) < end && sampling.error.get() == null) {
                    long due = start + (long) (sent * 1e9 / perSec);
                    if (now < due) {
                        LockSupport.parkNanos(due - now);
                        continue;
                    }
                    send(producer);
                    sent++;
                }
                TestCluster.await(() -> sampling.windows.size() >= count || sampling.error.get() != null, Duration.ofMinutes(2),
                    "the sampler to record its " + count + " windows");
            } finally {
                sampler.shutdownNow();
            }
            if (sampling.error.get() != null) {
                throw new IllegalStateException("the soak's sampler failed", sampling.error.get());
            }
            return new ArrayList<>(sampling.windows);
        }

        /** Records one window each time it runs (at the window's end): the producer's figures, then each node's. */
        private final class WindowSampler implements Runnable {
            private final long start;
            private final int count;
            private final Path jsonl;
            final List<Window> windows = new java.util.concurrent.CopyOnWriteArrayList<>();
            final AtomicReference<Throwable> error = new AtomicReference<>();
            private long ackedBefore = ackedCount.sum();
            private Histogram interval;

            WindowSampler(long start, int count, Path jsonl) {
                this.start = start;
                this.count = count;
                this.jsonl = jsonl;
            }

            @Override
            public void run() {
                if (windows.size() >= count || error.get() != null) {
                    return;
                }
                try {
                    double endSeconds = (SystemTime.INSTANCE.nanoseconds() - start) / 1e9;
                    interval = latency.getIntervalHistogram(interval);
                    long ackedNow = ackedCount.sum();
                    long consumedNow = consumed.sum();
                    long ackedInWindow = ackedNow - ackedBefore;
                    ackedBefore = ackedNow;
                    List<NodeSample> nodes = new ArrayList<>();
                    for (TestNode n : cluster.nodes()) {
                        long pid = n.pid();
                        nodes.add(new NodeSample(n.id(), ProcessStats.status(pid, "VmRSS") / 1024.0,
                            ProcessStats.heapAfterGcKib(pid) / 1024.0, ProcessStats.openFiles(pid)));
                    }
                    Window w = new Window(windows.size(), Math.round(endSeconds * 10) / 10.0, ackedInWindow,
                        Math.round(ackedInWindow * 1e9 / s.window().toNanos()), ms(interval, 50), ms(interval, 99),
                        ms(interval, 99.9), interval.getMaxValue() / 1000.0, consumedNow, ackedNow - consumedNow, nodes);
                    String json = JSON.writeValueAsString(w);
                    Files.writeString(jsonl, json + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
                    System.out.println("SoakRun window: " + json);
                    windows.add(w);
                } catch (Throwable t) {
                    error.set(t);
                }
            }
        }

        private void send(RaftlineProducer<byte[], byte[]> producer) {
            for (int i = 0; i < value.length; i++) {
                value[i] = (byte) ('A' + random.nextInt(26));
            }
            long sentAt = SystemTime.INSTANCE.nanoseconds();
            producer.send(new ProducerRecord<>(TOPIC, null, value), (md, e) -> {
                if (e != null) {
                    failed.increment();
                    return;
                }
                latency.recordValue(Math.max(1, (SystemTime.INSTANCE.nanoseconds() - sentAt) / 1_000));
                synchronized (acked[md.partition()]) {
                    acked[md.partition()].set(Math.toIntExact(md.offset()));
                }
                ackedCount.increment();
            });
        }

        /** Reads from the beginning, keeping {@code consumerBehind} behind the records' own timestamps. */
        private void consume() {
            Properties cp = new Properties();
            cp.putAll(base);
            // a consumer that fell behind the retention must fail the run, not skip ahead
            cp.setProperty("auto.offset.reset", "none");
            cp.setProperty("max.poll.records", "2000");
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < s.partitions(); p++) {
                tps.add(new TopicPartition(TOPIC, p));
            }
            long behindMs = s.consumerBehind().toMillis();
            try (RaftlineConsumer<byte[], byte[]> consumer = new RaftlineConsumer<>(cp, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
                consumer.assign(tps);
                consumer.seekToBeginning(tps);
                // each partition is paused while its newest record read is younger than consumerBehind, so every
                // partition trails the producer by that time (until the producer has stopped)
                long[] newest = new long[s.partitions()];
                while (!stopConsumer.get()) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        if (r.value() == null || r.value().length != s.recordBytes()) {
                            throw new IllegalStateException("record " + r.partition() + "@" + r.offset() + " has "
                                + (r.value() == null ? "no value" : r.value().length + " bytes"));
                        }
                        int offset = Math.toIntExact(r.offset());
                        synchronized (read[r.partition()]) {
                            if (!read[r.partition()].get(offset)) {
                                read[r.partition()].set(offset);
                                readDistinct.increment();
                            }
                        }
                        consumed.increment();
                        newest[r.partition()] = Math.max(newest[r.partition()], r.timestamp());
                    }
                    long now = SystemTime.INSTANCE.milliseconds();
                    List<TopicPartition> pause = new ArrayList<>();
                    List<TopicPartition> resume = new ArrayList<>();
                    for (int p = 0; p < s.partitions(); p++) {
                        (!producerDone && newest[p] + behindMs > now ? pause : resume).add(tps.get(p));
                    }
                    consumer.pause(pause);
                    consumer.resume(resume);
                }
            } catch (Throwable t) {
                consumerError.set(t);
            }
        }
    }

    private static double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile) / 1000.0;
    }
}
