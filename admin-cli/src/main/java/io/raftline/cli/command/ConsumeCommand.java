package io.raftline.cli.command;

import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.client.common.PartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.ConsumerRecords;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.errors.WakeupException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code raftline consume}: the console consumer. Prints one record per line (the fields asked for, tab-separated,
 * in the order partition, offset, key, value); stops after --max-messages, after --timeout-ms without a record, or
 * on SIGINT/SIGTERM, then says how many it printed. With --group it commits what it printed before exiting.
 */
@Command(name = "consume", mixinStandardHelpOptions = true, description = "Prints records of a topic, one per line.",
    footer = {"", "Examples:", "  raftline consume --topic orders --from-beginning --max-messages 10",
        "  raftline consume --topic orders --group billing --print-key --print-offset",
        "  raftline consume --topic orders --partition 2 --offset 100 --timeout-ms 5000"})
public final class ConsumeCommand implements Callable<Integer> {

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = "--topic", required = true, paramLabel = "T")
    String topic;
    @Option(names = "--group", paramLabel = "G", description = "Read as a member of this consumer group.")
    String group;
    @Option(names = "--from-beginning", description = "Start at the earliest offset (with --group: when it has no commit).")
    boolean fromBeginning;
    @Option(names = "--partition", paramLabel = "P", description = "Read only this partition (not with --group).")
    Integer partition;
    @Option(names = "--offset", paramLabel = "N|earliest|latest", description = "With --partition: where to start.")
    String offset;
    @Option(names = "--max-messages", paramLabel = "N", description = "Exit after this many records.")
    Long maxMessages;
    @Option(names = "--timeout-ms", paramLabel = "MS", description = "Exit when no record arrives for this long.")
    Long timeoutMs;
    @Option(names = "--print-key")
    boolean printKey;
    @Option(names = "--print-offset")
    boolean printOffset;
    @Option(names = "--print-partition")
    boolean printPartition;
    @Option(names = "--consumer-property", paramLabel = "K=V", description = "A consumer config (repeatable).")
    Map<String, String> consumerProps = new LinkedHashMap<>();

    @Override
    public Integer call() throws InterruptedException {
        if (group != null && partition != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--partition cannot be used with --group");
        }
        if (offset != null && partition == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--offset needs --partition");
        }
        Properties props = options.consumerProperties("raftline-console-consumer");
        props.setProperty("auto.offset.reset", fromBeginning ? "earliest" : "latest");
        props.setProperty("enable.auto.commit", "false");
        if (group != null) {
            props.setProperty("group.id", group);
        }
        consumerProps.forEach(props::setProperty);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        long printed = 0;
        CountDownLatch exited = new CountDownLatch(1);
        RaftlineConsumer<byte[], byte[]> consumer = new RaftlineConsumer<>(props, new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
        Thread hook = new Thread(() -> {
            consumer.wakeup();
            try {
                exited.await();
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }, "consume-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        Map<TopicPartition, Long> next = new HashMap<>();
        try {
            subscribeOrAssign(consumer);
            long lastRecordNs = System.nanoTime();
            StringBuilder line = new StringBuilder();
            outer:
            while (maxMessages == null || printed < maxMessages) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) {
                    if (timeoutMs != null && System.nanoTime() - lastRecordNs > timeoutMs * 1_000_000L) {
                        break;
                    }
                    continue;
                }
                lastRecordNs = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    line.setLength(0);
                    if (printPartition) {
                        line.append(r.partition()).append('\t');
                    }
                    if (printOffset) {
                        line.append(r.offset()).append('\t');
                    }
                    if (printKey) {
                        line.append(text(r.key())).append('\t');
                    }
                    line.append(text(r.value()));
                    out.println(line);
                    next.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
                    printed++;
                    if (maxMessages != null && printed >= maxMessages) {
                        break outer;
                    }
                }
                out.flush();
            }
        } catch (WakeupException e) {
            // SIGINT or SIGTERM: stop as asked
        } finally {
            out.flush();
            try {
                if (group != null && !next.isEmpty()) {
                    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
                    next.forEach((tp, o) -> commit.put(tp, new OffsetAndMetadata(o)));
                    consumer.commitSync(commit);
                }
            } finally {
                consumer.close(Duration.ofSeconds(10));
                err.println("Processed a total of " + printed + " messages");
                err.flush();
                exited.countDown();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException ignored) {
                    // already shutting down
                }
            }
        }
        return 0;
    }

    private void subscribeOrAssign(RaftlineConsumer<byte[], byte[]> consumer) {
        if (group != null) {
            consumer.subscribe(List.of(topic));
            return;
        }
        List<TopicPartition> partitions = new ArrayList<>();
        if (partition != null) {
            partitions.add(new TopicPartition(topic, partition));
        } else {
            List<PartitionInfo> infos = consumer.partitionsFor(topic);
            if (infos == null || infos.isEmpty()) {
                throw new CliException("topic '" + topic + "' does not exist");
            }
            infos.forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        }
        consumer.assign(partitions);
        if (offset != null) {
            switch (offset) {
                case "earliest" -> consumer.seekToBeginning(partitions);
                case "latest" -> consumer.seekToEnd(partitions);
                default -> {
                    long n;
                    try {
                        n = Long.parseLong(offset);
                    } catch (NumberFormatException e) {
                        throw new CliException("--offset must be a number, earliest or latest, got '" + offset + "'");
                    }
                    consumer.seek(partitions.get(0), n);
                }
            }
        } else if (fromBeginning) {
            consumer.seekToBeginning(partitions);
        } else {
            consumer.seekToEnd(partitions);
        }
    }

    private static String text(byte[] bytes) {
        return bytes == null ? "null" : new String(bytes, StandardCharsets.UTF_8);
    }
}
