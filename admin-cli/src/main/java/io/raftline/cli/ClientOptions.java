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

    @Option(names = "--command-config", paramLabel = "FILE", description = "Client properties (timeouts, ...).")
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

    /** Client properties: --command-config, then the bootstrap address and the CLI's default timeouts. */
    public Properties clientProperties() {
        Properties props = new Properties();
        if (commandConfig != null) {
            try (Reader reader = Files.newBufferedReader(commandConfig, StandardCharsets.UTF_8)) {
                props.load(reader);
            } catch (IOException e) {
                throw new CliException("cannot read --command-config " + commandConfig + ": " + e.getMessage());
            }
        }
        props.setProperty("bootstrap.servers", bootstrap());
        props.putIfAbsent("default.api.timeout.ms", DEFAULT_API_TIMEOUT_MS);
        props.putIfAbsent("client.id", "raftline-cli");
        return props;
    }

    /** Properties for an Admin client: only the keys an Admin knows are passed on. */
    public Admin admin() {
        Properties all = clientProperties();
        Properties props = new Properties();
        for (String key : new String[] {"bootstrap.servers", "default.api.timeout.ms", "client.id", "request.timeout.ms",
            "retry.backoff.ms"}) {
            if (all.getProperty(key) != null) {
                props.setProperty(key, all.getProperty(key));
            }
        }
        return Admin.create(props);
    }
}
