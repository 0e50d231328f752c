package io.raftline.cli.command;

import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.console.Encoding;
import io.raftline.cli.console.RecordFormatter;
import io.raftline.client.common.PartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.ConsumerRecords;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.errors.WakeupException;
import io.raftline.common.SystemTime;
import java.io.PrintWriter;
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
 * {@code raftline consume}: the console consumer. Prints one record per line ({@link RecordFormatter}: the fields asked
 * for, tab-separated, in the order timestamp, partition, offset, headers, key, value; or one JSON object); stops
 * after --max-messages, after --timeout-ms without a record, or on SIGINT/SIGTERM, then says how many it printed.
 * With --group it commits what it printed before exiting.
 */
@Command(name = "consume", mixinStandardHelpOptions = true, description = "Prints records of a topic, one per line.",
    footer = {"", "Examples:", "  raftline consume --topic orders --from-beginning --max-messages 10",
        "  raftline consume --topic orders --group billing --print-key --print-offset",
        "  raftline consume --topic orders --partition 2 --offset 100 --timeout-ms 5000",
        "  raftline consume --topic orders --from-beginning --property print.timestamp=true --property print.headers=true",
        "  raftline consume --topic orders --from-beginning --formatter json --value-format base64"})
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
    @Option(names = "--property", paramLabel = "K=V",
        description = "What to print, as kafka-console-consumer: print.timestamp, print.partition, print.offset, "
            + "print.headers, print.key, print.value (true|false), key.separator (a tab), headers.separator, null.literal "
            + "(repeatable).")
    Map<String, String> properties = new LinkedHashMap<>();
    @Option(names = "--formatter", paramLabel = "default|json", defaultValue = "default",
        description = "json: one object per record (topic, partition, offset, timestamp, timestampType, key, value, "
            + "headers). Default: ${DEFAULT-VALUE}.")
    String formatter;
    @Option(names = "--value-format", paramLabel = "utf8|base64|hex", defaultValue = "utf8",
        description = "How keys, values and header values print. Default: ${DEFAULT-VALUE}.")
    Encoding valueFormat;
    @Option(names = "--consumer-property", paramLabel = "K=V", description = "A consumer config (repeatable).")
    Map<String, String> consumerProps = new LinkedHashMap<>();

    @Override
    public Integer call() throws InterruptedException {
        if (options.json()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "consume cannot print --output json: it prints "
                + "records as they come; use --formatter json for one JSON object per record");
        }
        RecordFormatter format = formatter();
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
            long lastRecordNs = SystemTime.INSTANCE.nanoseconds();
            outer:
            while (maxMessages == null || printed < maxMessages) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) {
                    if (timeoutMs != null && SystemTime.INSTANCE.nanoseconds() - lastRecordNs > timeoutMs * 1_000_000L) {
                        break;
                    }
                    continue;
                }
                lastRecordNs = SystemTime.INSTANCE.nanoseconds();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    out.println(format.format(r));
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

    /** The formatter of --formatter, --value-format and --property, with the --print-* flags as the shorthands they are. */
    private RecordFormatter formatter() {
        if (!formatter.equals("default") && !formatter.equals("json")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--formatter must be default or json, got '"
                + formatter + "'");
        }
        Map<String, String> props = new LinkedHashMap<>(properties);
        if (printPartition) {
            props.put("print.partition", "true");
        }
        if (printOffset) {
            props.put("print.offset", "true");
        }
        if (printKey) {
            props.put("print.key", "true");
        }
        try {
            return RecordFormatter.fromProperties(formatter.equals("json"), valueFormat, props);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
