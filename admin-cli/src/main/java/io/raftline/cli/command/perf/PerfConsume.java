package io.raftline.cli.command.perf;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.client.common.PartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.consumer.ConsumerRebalanceListener;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.ConsumerRecords;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.common.SystemTime;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code raftline perf consume}: Kafka's consumer-perf-test: reads N records from the beginning as fast as it can. */
@Command(name = "consume", mixinStandardHelpOptions = true, description = "Reads records as fast as possible and reports throughput.",
    footer = {"", "Example:", "  raftline perf consume --topic bench --messages 1000000 --group perf"})
public final class PerfConsume implements Callable<Integer> {

    /** Give up when no record has arrived for this long (the topic holds fewer than asked). */
    static final long IDLE_TIMEOUT_MS = 30_000;

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = "--topic", required = true, paramLabel = "T")
    String topic;
    @Option(names = "--messages", required = true, paramLabel = "N")
    long messages;
    @Option(names = "--group", paramLabel = "G", description = "Join this group (default: assign every partition).")
    String group;
    @Option(names = "--consumer-property", paramLabel = "K=V", description = "A consumer config (repeatable).")
    Map<String, String> consumerProps = new LinkedHashMap<>();

    @Override
    public Integer call() {
        if (messages < 1) {
            throw new CliException("--messages must be at least 1");
        }
        Properties props = options.consumerProperties("raftline-perf-consumer");
        props.setProperty("auto.offset.reset", "earliest");
        props.setProperty("enable.auto.commit", "false");
        if (group != null) {
            props.setProperty("group.id", group);
        }
        consumerProps.forEach(props::setProperty);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter progress = options.json() ? spec.commandLine().getErr() : out;
        long records = 0;
        long bytes = 0;
        long start;
        long[] assignedAt = {-1};
        long end;
        try (RaftlineConsumer<byte[], byte[]> consumer = new RaftlineConsumer<>(props, new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
            // The clock starts once the consumer exists, as in Kafka's ConsumerPerformance (whose figures
            // side-by-side.sh compares with these): join and fetch time, not the client's construction.
            start = SystemTime.INSTANCE.nanoseconds();
            if (group != null) {
                consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        if (assignedAt[0] < 0) {
                            assignedAt[0] = SystemTime.INSTANCE.nanoseconds();
                        }
                    }
                });
            } else {
                List<PartitionInfo> infos = consumer.partitionsFor(topic);
                if (infos == null || infos.isEmpty()) {
                    throw new CliException("topic '" + topic + "' does not exist");
                }
                List<TopicPartition> tps = new ArrayList<>();
                infos.forEach(p -> tps.add(new TopicPartition(topic, p.partition())));
                consumer.assign(tps);
                consumer.seekToBeginning(tps);
                assignedAt[0] = SystemTime.INSTANCE.nanoseconds();
            }
            long lastRecordNs = SystemTime.INSTANCE.nanoseconds();
            long lastReportNs = lastRecordNs;
            long lastReportRecords = 0;
            while (records < messages) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                long now = SystemTime.INSTANCE.nanoseconds();
                if (batch.isEmpty()) {
                    if (now - lastRecordNs > IDLE_TIMEOUT_MS * 1_000_000L) {
                        throw new CliException("only " + records + " of " + messages + " records arrived; none for "
                            + IDLE_TIMEOUT_MS / 1000 + " s");
                    }
                    continue;
                }
                lastRecordNs = now;
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    records++;
                    bytes += r.serializedValueSize() + Math.max(0, r.serializedKeySize());
                }
                if (now - lastReportNs >= PerfProduce.REPORT_INTERVAL_MS * 1_000_000L) {
                    progress.printf("%d records consumed, %.1f records/sec.%n", records,
                        (records - lastReportRecords) / ((now - lastReportNs) / 1e9));
                    progress.flush();
                    lastReportNs = now;
                    lastReportRecords = records;
                }
            }
            end = SystemTime.INSTANCE.nanoseconds();
        }
        double totalSec = (end - start) / 1e9;
        long fetchStart = assignedAt[0] < 0 ? start : assignedAt[0];
        double fetchSec = Math.max(1e-9, (end - fetchStart) / 1e9);
        double mb = bytes / (1024.0 * 1024.0);
        ObjectNode doc = Json.object()
            .put("records", records)
            .put("msgsPerSec", round(records / totalSec))
            .put("mbPerSec", round(mb / totalSec))
            .put("rebalanceMs", round((fetchStart - start) / 1e6))
            .put("fetchMs", round(fetchSec * 1000))
            .put("fetchMsgsPerSec", round(records / fetchSec))
            .put("fetchMbPerSec", round(mb / fetchSec));
        if (options.json()) {
            Json.print(out, doc);
        } else {
            out.printf("%d records (%.2f MB) in %.2f s: %.1f records/sec, %.2f MB/sec (%.1f records/sec after %.0f ms of "
                    + "joining)%n", records, mb, totalSec, records / totalSec, mb / totalSec, records / fetchSec,
                (fetchStart - start) / 1e6);
            out.flush();
        }
        return 0;
    }

    static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
