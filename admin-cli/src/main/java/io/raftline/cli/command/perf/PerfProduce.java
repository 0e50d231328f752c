package io.raftline.cli.command.perf;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.client.common.serialization.ByteArraySerializer;
import io.raftline.common.SystemTime;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code raftline perf produce}: Kafka's producer-perf-test, same options and the same meaning of latency (from
 * send to acknowledgement), on the SDK's defaults.
 */
@Command(name = "produce", mixinStandardHelpOptions = true,
    description = "Sends records as fast as asked and reports throughput and send-to-ack latency.",
    footer = {"", "Example:", "  raftline perf produce --topic bench --num-records 1000000 --record-size 1024 --throughput -1 "
        + "--producer-property linger.ms=5"})
public final class PerfProduce implements Callable<Integer> {

    static final long REPORT_INTERVAL_MS = 5000;

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = "--topic", required = true, paramLabel = "T")
    String topic;
    @Option(names = "--num-records", required = true, paramLabel = "N")
    long numRecords;
    @Option(names = "--record-size", required = true, paramLabel = "B")
    int recordSize;
    @Option(names = "--throughput", required = true, paramLabel = "R", description = "Records per second; -1 for no limit.")
    long throughput;
    @Option(names = "--acks", paramLabel = "0|1|all", description = "Overrides acks (default: the SDK's, all).")
    String acks;
    @Option(names = "--producer-property", paramLabel = "K=V", description = "A producer config (repeatable).")
    Map<String, String> producerProps = new LinkedHashMap<>();
    @Option(names = "--warmup-records", paramLabel = "W", description = "The first W records are a warm-up: a second "
        + "summary (steadyState in JSON) covers only the records after them, as Kafka's --warmup-records (default: 0).")
    long warmupRecords;

    @Override
    public Integer call() throws Exception {
        if (numRecords < 1) {
            throw new CliException("--num-records must be at least 1");
        }
        if (recordSize < 1) {
            throw new CliException("--record-size must be at least 1");
        }
        if (warmupRecords < 0 || warmupRecords >= numRecords) {
            throw new CliException("--warmup-records must be at least 0 and below --num-records (" + numRecords + ")");
        }
        Properties props = options.producerProperties("raftline-perf-producer");
        if (acks != null) {
            props.setProperty("acks", acks);
        }
        producerProps.forEach(props::setProperty);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter progress = options.json() ? spec.commandLine().getErr() : out;

        // As Kafka's producer-perf-test: every record gets fresh random capital letters (one array, refilled: the
        // producer copies a value into its batch on send), so a compressed run compresses what Kafka's does.
        byte[] payload = new byte[recordSize];
        SplittableRandom random = new SplittableRandom(42);
        LatencyStats latency = new LatencyStats();
        LatencyStats steady = new LatencyStats();
        AtomicLong acked = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong firstError = new AtomicLong(-1);
        String[] errorText = new String[1];
        long start;
        long steadyStart = 0;
        long end;
        try (RaftlineProducer<byte[], byte[]> producer = new RaftlineProducer<>(props, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            start = SystemTime.INSTANCE.nanoseconds();
            Throttler throttler = new Throttler(throughput, start);
            long lastReportNs = start;
            long lastReportAcked = 0;
            for (long i = 0; i < numRecords; i++) {
                boolean warm = i >= warmupRecords;
                for (int j = 0; j < payload.length; j++) {
                    payload[j] = (byte) ('A' + random.nextInt(26));
                }
                long sendNs = SystemTime.INSTANCE.nanoseconds();
                if (i == warmupRecords) {
                    steadyStart = sendNs;
                }
                producer.send(new ProducerRecord<>(topic, payload), (metadata, exception) -> {
                    if (exception != null) {
                        if (errors.incrementAndGet() == 1) {
                            firstError.set(SystemTime.INSTANCE.nanoseconds());
                            errorText[0] = exception.getMessage();
                        }
                    } else {
                        long micros = (SystemTime.INSTANCE.nanoseconds() - sendNs) / 1000;
                        latency.recordMicros(micros);
                        if (warm) {
                            steady.recordMicros(micros);
                        }
                        acked.incrementAndGet();
                    }
                });
                throttler.pace(i + 1);
                long now = SystemTime.INSTANCE.nanoseconds();
                if (now - lastReportNs >= REPORT_INTERVAL_MS * 1_000_000L) {
                    long ackedNow = acked.get();
                    report(progress, ackedNow - lastReportAcked, now - lastReportNs, latency.interval());
                    lastReportNs = now;
                    lastReportAcked = ackedNow;
                }
            }
            producer.flush();
            end = SystemTime.INSTANCE.nanoseconds();
        }
        long steadyRecords = numRecords - warmupRecords;
        if (options.json()) {
            ObjectNode doc = summary(numRecords, end - start, latency.total());
            if (warmupRecords > 0) {
                doc.set("steadyState", summary(steadyRecords, end - steadyStart, steady.total()));
            }
            doc.put("errors", errors.get());
            Json.print(out, doc);
        } else {
            printSummary(out, "", numRecords, end - start, latency.total());
            if (warmupRecords > 0) {
                // Kafka's producer-perf-test prints its steady-state line the same way, after the whole run's
                printSummary(out, " steady state", steadyRecords, end - steadyStart, steady.total());
            }
            if (errors.get() > 0) {
                out.println(errors.get() + " record(s) failed; the first: " + errorText[0]);
            }
            out.flush();
        }
        return errors.get() == 0 ? 0 : 1;
    }

    private ObjectNode summary(long records, long elapsedNs, Histogram latencies) {
        double recsPerSec = records / (elapsedNs / 1e9);
        ObjectNode doc = Json.object()
            .put("records", records)
            .put("recordsPerSec", Math.round(recsPerSec * 100) / 100.0)
            .put("mbPerSec", Math.round(recsPerSec * recordSize / (1024.0 * 1024.0) * 100) / 100.0);
        doc.set("latencyMs", LatencyStats.summary(latencies));
        return doc;
    }

    private void printSummary(PrintWriter out, String what, long records, long elapsedNs, Histogram h) {
        double recsPerSec = records / (elapsedNs / 1e9);
        out.printf("%d%s records sent, %.1f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, "
                + "%.0f ms 50th, %.0f ms 95th, %.0f ms 99th, %.0f ms 99.9th.%n", records, what, recsPerSec,
            recsPerSec * recordSize / (1024.0 * 1024.0), LatencyStats.ms(h.getMean()), LatencyStats.ms(h.getMaxValue()),
            LatencyStats.ms(h.getValueAtPercentile(50)), LatencyStats.ms(h.getValueAtPercentile(95)),
            LatencyStats.ms(h.getValueAtPercentile(99)), LatencyStats.ms(h.getValueAtPercentile(99.9)));
    }

    private static void report(PrintWriter progress, long records, long elapsedNs, Histogram window) {
        double seconds = elapsedNs / 1e9;
        progress.printf("%d records sent, %.1f records/sec, %.2f ms avg latency, %.2f ms max latency.%n", records,
            records / seconds, LatencyStats.ms(window.getMean()), LatencyStats.ms(window.getMaxValue()));
        progress.flush();
    }
}
