package io.raftline.broker;

import io.raftline.broker.config.ServerConfig;
import io.raftline.broker.log.SegmentDump;
import io.raftline.broker.storage.ClusterIds;
import io.raftline.broker.storage.StorageException;
import io.raftline.metadata.quorum.QuorumServer;
import io.raftline.broker.storage.StorageFormatter;
import io.raftline.common.Version;
import io.raftline.common.config.ConfigException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The node's main: {@code raftline server} and {@code raftline storage}. Exit codes follow the CLI contract:
 * 0 done, 1 failed (one {@code error:} line on stderr), 2 the command line could not be parsed.
 */
@Command(name = "raftline", mixinStandardHelpOptions = true, versionProvider = ServerMain.VersionProvider.class,
    subcommands = {ServerMain.Server.class, ServerMain.Storage.class})
public final class ServerMain {

    private static final Logger LOG = LoggerFactory.getLogger(ServerMain.class);

    public static void main(String[] args) {
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs a command in-process (tests call this) and returns its exit code. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cli = new CommandLine(new ServerMain());
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            Throwable cause = e;
            for (Throwable c = e; c != null; c = c.getCause()) {
                if (c instanceof QuorumServer.QuorumStorageException) {
                    cause = c;
                }
            }
            if (cause instanceof ConfigException || cause instanceof StorageException
                || cause instanceof IllegalArgumentException || cause instanceof QuorumServer.QuorumStorageException) {
                err.println("error: " + cause.getMessage());
            } else {
                err.println("error: " + cause);
                cause.printStackTrace(err);
            }
            return 1;
        });
        // a command line that does not parse: one error line that says why, then the usage, exit 2 (as the CLI's)
        cli.setParameterExceptionHandler((e, given) -> {
            e.getCommandLine().getErr().println("error: " + e.getMessage());
            if (!CommandLine.UnmatchedArgumentException.printSuggestions(e, e.getCommandLine().getErr())) {
                e.getCommandLine().usage(e.getCommandLine().getErr());
            }
            e.getCommandLine().getErr().flush();
            return e.getCommandLine().getCommandSpec().exitCodeOnInvalidInput();
        });
        return cli.execute(args);
    }

    @Command(name = "server", description = "Runs one node in the foreground, with the roles in process.roles.",
        mixinStandardHelpOptions = true,
        footer = {"", "Example:", "  raftline server --config config/server.properties"})
    static final class Server implements Callable<Integer> {

        @Option(names = "--config", required = true, paramLabel = "FILE", description = "The node's server.properties.")
        Path config;

        @Override
        public Integer call() throws Exception {
            ServerConfig serverConfig = ServerConfig.load(config);
            String clusterId = StorageFormatter.checkFormatted(serverConfig);
            RaftlineNode node = new RaftlineNode(serverConfig, clusterId);
            Thread hook = new Thread(node::shutdown, "shutdown-hook");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                node.startup();
            } catch (RuntimeException e) {
                LOG.error("node {} failed to start", serverConfig.nodeId(), e);
                node.shutdown();
                throw e;
            }
            node.awaitShutdown();
            return 0;
        }
    }

    @Command(name = "storage", description = "Formats a node's directories, makes a cluster id, or dumps segment files.",
        mixinStandardHelpOptions = true,
        subcommands = {Storage.RandomUuid.class, Storage.Format.class, Storage.DumpLog.class})
    static final class Storage implements Callable<Integer> {

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            throw new CommandLine.ParameterException(spec.commandLine(), "missing command: random-uuid, format or dump-log");
        }

        @Command(name = "random-uuid", description = "Prints a new cluster id alone on one line.",
            mixinStandardHelpOptions = true, footer = {"", "Example:", "  raftline storage random-uuid"})
        static final class RandomUuid implements Callable<Integer> {
            @CommandLine.Spec
            CommandLine.Model.CommandSpec spec;

            @Override
            public Integer call() {
                spec.commandLine().getOut().println(ClusterIds.random());
                spec.commandLine().getOut().flush();
                return 0;
            }
        }

        @Command(name = "format", description = "Writes meta.properties with the cluster id into every dir of the node.",
            mixinStandardHelpOptions = true,
            footer = {"", "Example:",
                "  raftline storage format --config config/server.properties --cluster-id $(raftline storage random-uuid)"})
        static final class Format implements Callable<Integer> {
            @CommandLine.Spec
            CommandLine.Model.CommandSpec spec;

            @Option(names = "--config", required = true, paramLabel = "FILE", description = "The node's server.properties.")
            Path config;

            @Option(names = "--cluster-id", required = true, paramLabel = "ID", description = "From 'raftline storage random-uuid'.")
            String clusterId;

            @Option(names = "--ignore-formatted", description = "Skip dirs that are already formatted instead of failing.")
            boolean ignoreFormatted;

            @Override
            public Integer call() {
                ServerConfig serverConfig = ServerConfig.load(config);
                List<Path> formatted = StorageFormatter.format(serverConfig, clusterId, ignoreFormatted);
                PrintWriter out = spec.commandLine().getOut();
                for (Path dir : formatted) {
                    out.println("Formatted " + dir + " with cluster id " + clusterId);
                }
                if (formatted.isEmpty()) {
                    out.println("All directories are already formatted");
                }
                out.flush();
                return 0;
            }
        }

        @Command(name = "dump-log", mixinStandardHelpOptions = true,
            description = "Prints the batches of segment files (offsets, epochs, producers, CRC checks) and checks each "
                + "segment's offset index against it, as kafka-dump-log does. Reads only. Exit 1 if anything is wrong.",
            footer = {"", "Example:", "  raftline storage dump-log --files /var/lib/raftline/logs/orders-0/00000000000000000000.log"})
        static final class DumpLog implements Callable<Integer> {
            @CommandLine.Spec
            CommandLine.Model.CommandSpec spec;

            @Option(names = "--files", required = true, split = ",", paramLabel = "FILE[,FILE...]",
                description = "Segment (.log) or offset index (.index) files.")
            List<Path> files;

            @Option(names = "--print-data-log", description = "Also print every record (offset, timestamp, key, value).")
            boolean printRecords;

            @Override
            public Integer call() throws IOException {
                PrintWriter out = spec.commandLine().getOut();
                int problems = 0;
                for (Path file : files) {
                    if (!Files.isRegularFile(file)) {
                        throw new IllegalArgumentException("no such file: " + file);
                    }
                    SegmentDump.Result result = SegmentDump.dump(file, printRecords, out);
                    problems += result.problems().size();
                }
                out.println(problems == 0 ? "No problems found" : problems + " problem(s) found");
                out.flush();
                return problems == 0 ? 0 : 1;
            }
        }
    }

    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"raftline " + Version.current()};
        }
    }
}
