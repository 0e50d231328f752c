package io.raftline.cli.command;

import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.RaftlineCli;
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
        "  printf 'k1:v1\\n' | raftline produce --topic orders --key-separator : --acks 1"})
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
    @Option(names = "--key-separator", paramLabel = "S", description = "Each line is key<S>value.")
    String keySeparator;
    @Option(names = "--report-acks", description = "Print partition<TAB>offset<TAB>line for each acknowledged record.")
    boolean reportAcks;
    @Option(names = "--producer-property", paramLabel = "K=V", description = "A producer config (repeatable).")
    Map<String, String> producerProps = new LinkedHashMap<>();

    @Override
    public Integer call() throws IOException {
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
                byte[] key = null;
                String value = line;
                if (keySeparator != null) {
                    int at = line.indexOf(keySeparator);
                    if (at < 0) {
                        failed.incrementAndGet();
                        synchronized (err) {
                            err.println("error: no key separator '" + keySeparator + "' in the line: " + input);
                            err.flush();
                        }
                        continue;
                    }
                    key = line.substring(0, at).getBytes(StandardCharsets.UTF_8);
                    value = line.substring(at + keySeparator.length());
                }
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, partition, key,
                    value.getBytes(StandardCharsets.UTF_8));
                try {
                    producer.send(record, (metadata, exception) -> {
                        if (exception != null) {
                            failed.incrementAndGet();
                            synchronized (err) {
                                err.println("error: " + exception.getMessage() + ": " + input);
                                err.flush();
                            }
                        } else if (reportAcks) {
                            synchronized (out) {
                                out.println(metadata.partition() + "\t" + (metadata.hasOffset() ? metadata.offset() : -1)
                                    + "\t" + input);
                                out.flush();
                            }
                        }
                    });
                } catch (RuntimeException e) {
                    failed.incrementAndGet();
                    synchronized (err) {
                        err.println("error: " + e.getMessage() + ": " + input);
                        err.flush();
                    }
                }
            }
            producer.flush();
        }
        return failed.get() == 0 ? 0 : 1;
    }
}
