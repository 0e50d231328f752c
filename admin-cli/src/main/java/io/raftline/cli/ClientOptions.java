package io.raftline.cli;

import io.raftline.cli.output.OutputFormat;
import io.raftline.client.admin.Admin;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import picocli.CommandLine.Option;

/** The global options of every client command (mixed into each). */
public final class ClientOptions {

    /** An unreachable cluster is an error within this long unless --command-config says otherwise. */
    static final String DEFAULT_API_TIMEOUT_MS = "30000";

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT[,HOST:PORT...]",
        description = "Any brokers of the cluster (default: $RAFTLINE_BOOTSTRAP, else 127.0.0.1:9092).")
    String bootstrapServer;

    @Option(names = "--output", paramLabel = "table|json", defaultValue = "table",
        description = "A table for people or one JSON document on stdout (default: ${DEFAULT-VALUE}).")
    OutputFormat output;

    @Option(names = "--command-config", paramLabel = "FILE", description = "Client properties: any key a kafka-clients "
        + "file holds (timeouts, ...); keys a client does not use are reported once and handed to its plugins.")
    Path commandConfig;

    @Option(names = "--verbose", description = "On an error, also print the stack trace.")
    boolean verbose;

    public OutputFormat output() {
        return output;
    }

    public boolean json() {
        return output == OutputFormat.json;
    }

    public String bootstrap() {
        if (bootstrapServer != null && !bootstrapServer.isBlank()) {
            return bootstrapServer;
        }
        String env = System.getenv("RAFTLINE_BOOTSTRAP");
        return env != null && !env.isBlank() ? env : "127.0.0.1:9092";
    }

    /**
     * The client properties every command starts from: the --command-config file as it is (any key a Kafka client
     * file may hold: keys a client does not know are logged once as unused and handed on to its plugins), then the
     * bootstrap address, and the CLI's own defaults where the file sets none ({@code client.id}, and a 30 s
     * {@code default.api.timeout.ms} so that an unreachable cluster is an error in bounded time).
     */
    public Properties clientProperties() {
        Properties props = fileProperties();
        props.setProperty("bootstrap.servers", bootstrap());
        props.putIfAbsent("default.api.timeout.ms", DEFAULT_API_TIMEOUT_MS);
        props.putIfAbsent("client.id", "raftline-cli");
        return props;
    }

    /**
     * For a command's producer: as {@link #clientProperties()} but without the CLI's API timeout (a producer has
     * none) and without the file's serializer classes: the command brings its own byte-array serializers, as Kafka's
     * console tools override them.
     */
    public Properties producerProperties(String clientId) {
        return streamingProperties(clientId, "key.serializer", "value.serializer");
    }

    /** For a command's consumer: as {@link #producerProperties}, with the deserializers. */
    public Properties consumerProperties(String clientId) {
        return streamingProperties(clientId, "key.deserializer", "value.deserializer");
    }

    private Properties streamingProperties(String clientId, String... ownKeys) {
        Properties props = fileProperties();
        props.setProperty("bootstrap.servers", bootstrap());
        props.setProperty("client.id", clientId);
        for (String key : ownKeys) {
            props.remove(key);
        }
        return props;
    }

    private Properties fileProperties() {
        Properties props = new Properties();
        if (commandConfig != null) {
            try (Reader reader = Files.newBufferedReader(commandConfig, StandardCharsets.UTF_8)) {
                props.load(reader);
            } catch (IOException | IllegalArgumentException e) {
                // IllegalArgumentException: a malformed backslash-u escape
                throw new CliException("cannot read --command-config " + commandConfig + ": " + e.getMessage());
            }
        }
        return props;
    }

    /** An Admin client over {@link #clientProperties()}. */
    public Admin admin() {
        return Admin.create(clientProperties());
    }
}
