package io.raftline.cli;

import io.raftline.cli.command.AclsCommand;
import io.raftline.cli.command.UsersCommand;
import io.raftline.cli.command.BrokersCommand;
import io.raftline.cli.command.ConfigsCommand;
import io.raftline.cli.command.GroupsCommand;
import io.raftline.cli.command.ConsumeCommand;
import io.raftline.cli.command.LeaderElectionCommand;
import io.raftline.cli.command.DeleteRecordsCommand;
import io.raftline.cli.command.LogDirsCommand;
import io.raftline.cli.command.ProduceCommand;
import io.raftline.cli.command.QuorumCommand;
import io.raftline.cli.command.ReassignCommand;
import io.raftline.cli.command.TopicsCommand;
import io.raftline.cli.command.certs.CertsCommand;
import io.raftline.cli.command.dev.DevCommand;
import io.raftline.cli.command.perf.PerfCommand;
import io.raftline.cli.command.top.TopCommand;
import io.raftline.cli.command.verify.VerifyCommand;
import io.raftline.common.Version;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code raftline} command line. Exit codes: 0 done; 1 the operation failed (one {@code error: } line on
 * stderr, a stack trace only with {@code --verbose}); 2 the command line could not be parsed.
 */
@Command(name = "raftline", mixinStandardHelpOptions = true, versionProvider = RaftlineCli.VersionProvider.class,
    description = "Raftline: a distributed commit log in the Kafka tradition, with a Raft metadata quorum.",
    footer = {"", "Examples:", "  raftline dev", "  raftline topics create --topic orders --partitions 6 --replication-factor 3",
        "  raftline topics describe --topic orders --output json", "",
        "Shell completion: source share/bash-completion/completions/raftline"},
    subcommands = {
        RaftlineCli.ServerDoc.class,
        RaftlineCli.StorageDoc.class,
        DevCommand.class,
        TopicsCommand.class,
        BrokersCommand.class,
        QuorumCommand.class,
        LeaderElectionCommand.class,
        ReassignCommand.class,
        ConfigsCommand.class,
        AclsCommand.class,
        UsersCommand.class,
        GroupsCommand.class,
        LogDirsCommand.class,
        DeleteRecordsCommand.class,
        ProduceCommand.class,
        ConsumeCommand.class,
        PerfCommand.class,
        VerifyCommand.class,
        CertsCommand.class,
        TopCommand.class,
        CommandLine.HelpCommand.class,
    })
public final class RaftlineCli implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        int code = run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
        System.exit(code);
    }

    /** Where commands that read input (the console producer) read it; tests may set their own. */
    private static volatile InputStream input = System.in;

    public static InputStream input() {
        return input;
    }

    /** Runs one command in-process and returns its exit code (tests call this). */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cli = commandLine(out, err);
        return cli.execute(args);
    }

    /** As {@link #run(String[], PrintWriter, PrintWriter)}, reading stdin from {@code in}. */
    public static synchronized int run(String[] args, InputStream in, PrintWriter out, PrintWriter err) {
        InputStream before = input;
        input = in;
        try {
            return run(args, out, err);
        } finally {
            input = before;
        }
    }

    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cli = new CommandLine(new RaftlineCli());
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler(new ErrorHandler());
        cli.setParameterExceptionHandler(RaftlineCli::usageError);
        // picocli's own `help` command: every command's --help shows an example, this one too.
        cli.getSubcommands().get("help").getCommandSpec().usageMessage()
            .footer("", "Example:", "  raftline help topics create");
        return cli;
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    /**
     * A command line that does not parse: one {@code error:} line that says why, picocli's suggestions or the usage
     * of the command, exit 2 (CLI.md).
     */
    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("error: " + e.getMessage());
        if (!CommandLine.UnmatchedArgumentException.printSuggestions(e, err)) {
            cmd.usage(err);
        }
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** Turns a failure into the one {@code error:} line, with the trace only when --verbose was given. */
    static final class ErrorHandler implements CommandLine.IExecutionExceptionHandler {
        @Override
        public int handleExecutionException(Exception e, CommandLine cmd, CommandLine.ParseResult parseResult) {
            PrintWriter err = cmd.getErr();
            err.println("error: " + Errors.describe(e));
            if (parseResult.hasMatchedOption("--verbose") || hasVerbose(parseResult)) {
                e.printStackTrace(err);
            }
            err.flush();
            return 1;
        }

        private static boolean hasVerbose(CommandLine.ParseResult result) {
            for (CommandLine.ParseResult sub = result; sub != null; sub = sub.subcommand()) {
                if (sub.hasMatchedOption("--verbose")) {
                    return true;
                }
            }
            return false;
        }
    }

    @Command(name = "server", description = "Runs one node in the foreground (roles from process.roles).",
        footer = {"", "Example:", "  raftline server --config config/server.properties"})
    static final class ServerDoc implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new CliException("'server' runs through bin/raftline, which starts the node's own main");
        }
    }

    @Command(name = "storage", description = "Formats a node's dirs (format), prints a new cluster id (random-uuid), "
        + "or prints and checks segment files (dump-log).",
        footer = {"", "Examples:", "  raftline storage random-uuid",
            "  raftline storage format --config config/server.properties --cluster-id ID",
            "  raftline storage dump-log --files DIR/orders-0/00000000000000000000.log --print-data-log"})
    static final class StorageDoc implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new CliException("'storage' runs through bin/raftline, which starts the node's own main");
        }
    }

    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"raftline " + Version.current()};
        }
    }
}
