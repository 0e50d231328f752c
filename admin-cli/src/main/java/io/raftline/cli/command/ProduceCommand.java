package io.raftline.cli.command;

import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.RaftlineCli;
import io.raftline.cli.console.LineReader;
import io.raftline.client.common.serialization.ByteArraySerializer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code raftline produce}: the console producer. One record per stdin line, sent as soon as it is read; at EOF it
 * waits for every outstanding record and exits 1 if any failed.
 */
@Command(name = "produce", mixinStandardHelpOptions = true,
    description = "Sends each line of stdin as a record (no prompt).",
    footer = {"", "Examples:", "  printf 'a\\nb\\n' | raftline produce --topic orders --report-acks",
        "  printf 'k1:v1\\n' | raftline produce --topic orders --key-separator : --acks 1",
        "  printf 'trace:42,src:web\\tk1\\tv1\\n' | raftline produce --topic orders --property parse.headers=true "
            + "--property parse.key=true"})
public final class ProduceCommand implements Callable<Integer> {

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = "--topic", required = true, paramLabel = "T")
    String topic;
    @Option(names = "--partition", paramLabel = "P", description = "Send every record to this partition.")
    Integer partition;
    @Option(names = "--acks", paramLabel = "0|1|all", defaultValue = "all", description = "Default: ${DEFAULT-VALUE}.")
    String acks;
    @Option(names = "--key-separator", paramLabel = "S",
        description = "Each line is key<S>value (as --property parse.key=true --property key.separator=S).")
    String keySeparator;
    @Option(names = "--property", paramLabel = "K=V",
        description = "How lines are read, as kafka-console-producer: parse.key, key.separator (a tab), parse.headers "
            + "(h1:v1,h2:v2<TAB> before the rest), headers.delimiter, headers.separator, headers.key.separator, "
            + "null.marker (repeatable).")
    Map<String, String> properties = new LinkedHashMap<>();
    @Option(names = "--report-acks", description = "Print partition<TAB>offset<TAB>line for each acknowledged record.")
    boolean reportAcks;
    @Option(names = "--producer-property", paramLabel = "K=V", description = "A producer config (repeatable).")
    Map<String, String> producerProps = new LinkedHashMap<>();

    @Override
    public Integer call() throws IOException {
        if (options.json()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "produce cannot print --output json: it reads "
                + "records from stdin and prints only --report-acks lines");
        }
        LineReader reader = lineReader();
        if (!acks.equals("0") && !acks.equals("1") && !acks.equals("all") && !acks.equals("-1")) {
            throw new CliException("--acks must be 0, 1 or all, got '" + acks + "'");
        }
        Properties props = options.producerProperties("raftline-console-producer");
        props.setProperty("acks", acks);
        producerProps.forEach(props::setProperty);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        AtomicLong failed = new AtomicLong();
        try (RaftlineProducer<byte[], byte[]> producer = new RaftlineProducer<>(props, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            BufferedReader in = new BufferedReader(new InputStreamReader(RaftlineCli.input(), StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.endsWith("\r")) {
                    line = line.substring(0, line.length() - 1);
                }
                String input = line;
                ProducerRecord<byte[], byte[]> record;
                try {
                    LineReader.Parsed parsed = reader.parse(line);
                    record = new ProducerRecord<>(topic, partition, parsed.key(), parsed.value(), parsed.headers());
                } catch (IllegalArgumentException e) {
                    fail(err, failed, e.getMessage(), input);
                    continue;
                }
                try {
                    producer.send(record, (metadata, exception) -> {
                        if (exception != null) {
                            fail(err, failed, exception.getMessage(), input);
                        } else if (reportAcks) {
                            synchronized (out) {
                                out.println(metadata.partition() + "\t" + (metadata.hasOffset() ? metadata.offset() : -1)
                                    + "\t" + input);
                                out.flush();
                            }
                        }
                    });
                } catch (RuntimeException e) {
                    fail(err, failed, e.getMessage(), input);
                }
            }
            producer.flush();
        }
        return failed.get() == 0 ? 0 : 1;
    }

    /** A record that finally failed: counted, and one stderr line naming why and the input line. */
    private static void fail(PrintWriter err, AtomicLong failed, String why, String input) {
        failed.incrementAndGet();
        synchronized (err) {
            err.println("error: " + why + ": " + input);
            err.flush();
        }
    }

    /** The line reader of --property, with --key-separator as the shorthand it always was. */
    private LineReader lineReader() {
        Map<String, String> props = new LinkedHashMap<>(properties);
        if (keySeparator != null) {
            if (props.containsKey("parse.key") || props.containsKey("key.separator")) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                    "give --key-separator or --property parse.key/key.separator, not both");
            }
            props.put("parse.key", "true");
            props.put("key.separator", keySeparator);
        }
        try {
            return LineReader.fromProperties(props);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
