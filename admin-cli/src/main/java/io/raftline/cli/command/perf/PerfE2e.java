package io.raftline.cli.command.perf;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.client.common.PartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.common.serialization.ByteArraySerializer;
import io.raftline.client.consumer.ConsumerRecords;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.common.SystemTime;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code raftline perf e2e}: Kafka's EndToEndLatency: one record at a time with acks=all, sent, then consumed; the
 * latency is from send to the consumer seeing it.
 */
@Command(name = "e2e", mixinStandardHelpOptions = true, description = "Measures end-to-end latency, one record at a time.",
    footer = {"", "Example:", "  raftline perf e2e --topic latency --num-records 10000 --record-size 1024"})
public final class PerfE2e implements Callable<Integer> {

    static final long RECEIVE_TIMEOUT_MS = 30_000;

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = "--topic", required = true, paramLabel = "T")
    String topic;
    @Option(names = "--num-records", required = true, paramLabel = "N")
    int numRecords;
    @Option(names = "--record-size", required = true, paramLabel = "B")
    int recordSize;

    @Override
    public Integer call() throws Exception {
        if (numRecords < 1) {
            throw new CliException("--num-records must be at least 1");
        }
        if (recordSize < 1) {
            throw new CliException("--record-size must be at least 1");
        }
        Properties producerProps = options.producerProperties("raftline-perf-e2e-producer");
        producerProps.setProperty("acks", "all");
        producerProps.setProperty("linger.ms", "0");
        Properties consumerProps = options.consumerProperties("raftline-perf-e2e-consumer");
        consumerProps.setProperty("fetch.max.wait.ms", "500");
        consumerProps.setProperty("enable.auto.commit", "false");
        byte[] payload = new byte[recordSize];
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) ('A' + random.nextInt(26));
        }
        Histogram micros = new Histogram(3);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter progress = options.json() ? spec.commandLine().getErr() : out;
        try (RaftlineProducer<byte[], byte[]> producer = new RaftlineProducer<>(producerProps, new ByteArraySerializer(),
                new ByteArraySerializer());
             RaftlineConsumer<byte[], byte[]> consumer = new RaftlineConsumer<>(consumerProps, new ByteArrayDeserializer(),
                 new ByteArrayDeserializer())) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic);
            if (infos == null || infos.isEmpty()) {
                throw new CliException("topic '" + topic + "' does not exist");
            }
            List<TopicPartition> tps = new ArrayList<>();
            infos.forEach(p -> tps.add(new TopicPartition(topic, p.partition())));
            consumer.assign(tps);
            consumer.seekToEnd(tps);
            tps.forEach(consumer::position);
            long lastReport = SystemTime.INSTANCE.nanoseconds();
            for (int i = 0; i < numRecords; i++) {
                long begin = SystemTime.INSTANCE.nanoseconds();
                producer.send(new ProducerRecord<>(topic, payload)).get();
                int seen = 0;
                while (seen == 0) {
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(RECEIVE_TIMEOUT_MS));
                    if (records.isEmpty()) {
                        throw new CliException("record " + i + " was acknowledged but not consumed within "
                            + RECEIVE_TIMEOUT_MS / 1000 + " s");
                    }
                    seen = records.count();
                }
                micros.recordValue((SystemTime.INSTANCE.nanoseconds() - begin) / 1000);
                if (SystemTime.INSTANCE.nanoseconds() - lastReport > PerfProduce.REPORT_INTERVAL_MS * 1_000_000L) {
                    progress.printf("%d records, %.2f ms avg latency so far.%n", i + 1, micros.getMean() / 1000.0);
                    progress.flush();
                    lastReport = SystemTime.INSTANCE.nanoseconds();
                }
            }
        }
        ObjectNode doc = Json.object()
            .put("records", numRecords)
            .put("e2eAvgMs", LatencyStats.ms(micros.getMean()))
            .put("e2eP50Ms", LatencyStats.ms(micros.getValueAtPercentile(50)))
            .put("e2eP99Ms", LatencyStats.ms(micros.getValueAtPercentile(99)))
            .put("e2eP999Ms", LatencyStats.ms(micros.getValueAtPercentile(99.9)));
        if (options.json()) {
            Json.print(out, doc);
        } else {
            out.printf("Avg latency: %.2f ms; percentiles: 50th = %.2f, 99th = %.2f, 99.9th = %.2f ms%n",
                LatencyStats.ms(micros.getMean()), LatencyStats.ms(micros.getValueAtPercentile(50)),
                LatencyStats.ms(micros.getValueAtPercentile(99)), LatencyStats.ms(micros.getValueAtPercentile(99.9)));
            out.flush();
        }
        return 0;
    }
}
