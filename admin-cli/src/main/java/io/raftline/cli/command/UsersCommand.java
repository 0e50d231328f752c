package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.acl.ScramTypes;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.RaftlineCli;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.ScramCredentials;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.protocol.broker.DescribeUserScramCredentialsResponse.Credential;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code raftline users add|remove|list}: SCRAM-SHA-512 users kept in the metadata quorum, for clients that
 * authenticate with a user name and password on a SASL_SSL listener (Kafka's {@code kafka-configs --entity-type users
 * --alter --add-config SCRAM-SHA-512=[...]}). The password is salted and hashed here; only that is sent.
 */
@Command(name = "users", description = "Adds, removes and lists SCRAM-SHA-512 users (for SASL_SSL listeners).",
    mixinStandardHelpOptions = true, subcommands = {UsersCommand.Add.class, UsersCommand.Remove.class, UsersCommand.ListUsers.class},
    footer = {"", "Examples:",
        "  raftline users add --name app --password-file app.password",
        "  raftline users list --output json",
        "  raftline users remove --name app"})
public final class UsersCommand {

    private static final ScramMechanism MECHANISM = ScramMechanism.SCRAM_SHA_512;

    @Command(name = "add", mixinStandardHelpOptions = true,
        description = "Adds a user, or sets a new password for one (open sessions keep going until they re-authenticate).",
        footer = {"", "Example:", "  raftline users add --name app --password-file app.password",
            "", "Without --password-file the password is the first line of stdin."})
    static final class Add implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--name", paramLabel = "N", required = true, description = "The user name (principal User:N).")
        String name;
        @Option(names = "--password-file", paramLabel = "F",
            description = "A file whose first line is the password (else the first line of stdin).")
        Path passwordFile;
        @Option(names = "--iterations", paramLabel = "I", defaultValue = "" + ScramCredentials.DEFAULT_ITERATIONS,
            description = "SCRAM iterations, 4096 to 16384 (default: ${DEFAULT-VALUE}).")
        int iterations;

        @Override
        public Integer call() {
            String password = password();
            try (Admin admin = options.admin()) {
                Futures.get(admin.alterUserScramCredentials(
                    List.of(ScramCredentials.upsertion(name, MECHANISM, password, iterations)), List.of()));
            }
            report(spec.commandLine().getOut(), options.json(), "Added", name);
            return 0;
        }

        private String password() {
            String line;
            try {
                if (passwordFile != null) {
                    List<String> lines = Files.readAllLines(passwordFile, StandardCharsets.UTF_8);
                    line = lines.isEmpty() ? "" : lines.get(0);
                } else {
                    line = new BufferedReader(new InputStreamReader(RaftlineCli.input(), StandardCharsets.UTF_8)).readLine();
                }
            } catch (IOException e) {
                throw new CliException("cannot read " + (passwordFile != null ? "--password-file " + passwordFile : "stdin")
                    + ": " + e.getMessage());
            }
            if (line == null || line.isEmpty()) {
                throw new CliException("empty password: give it as the first line of "
                    + (passwordFile != null ? passwordFile : "stdin"));
            }
            return line;
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true,
        description = "Removes a user: its open sessions end at their next request.",
        footer = {"", "Example:", "  raftline users remove --name app"})
    static final class Remove implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--name", paramLabel = "N", required = true, description = "The user name.")
        String name;

        @Override
        public Integer call() {
            try (Admin admin = options.admin()) {
                Futures.get(admin.alterUserScramCredentials(List.of(), List.of(ScramCredentials.deletion(name, MECHANISM))));
            }
            report(spec.commandLine().getOut(), options.json(), "Removed", name);
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the SCRAM users (never a password or key).",
        footer = {"", "Example:", "  raftline users list --output json"})
    static final class ListUsers implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            List<Credential> users;
            try (Admin admin = options.admin()) {
                users = Futures.get(admin.describeUserScramCredentials(List.of()));
            }
            if (options.json()) {
                ObjectNode doc = Json.object();
                ArrayNode array = doc.putArray("users");
                users.forEach(c -> array.addObject().put("name", c.getName()).put("mechanism", mechanismName(c))
                    .put("iterations", c.getIterations()));
                Json.print(spec.commandLine().getOut(), doc);
                return 0;
            }
            Table table = new Table("NAME", "MECHANISM", "ITERATIONS");
            users.forEach(c -> table.row(c.getName(), mechanismName(c), String.valueOf(c.getIterations())));
            table.print(spec.commandLine().getOut());
            return 0;
        }

        private static String mechanismName(Credential c) {
            return ScramTypes.mechanism(c.getMechanism()).map(ScramMechanism::mechanismName).orElse(c.getMechanism().name());
        }
    }

    private static void report(java.io.PrintWriter out, boolean json, String verb, String name) {
        if (json) {
            ObjectNode doc = Json.object();
            doc.putArray("users").addObject().put("name", name).put("mechanism", MECHANISM.mechanismName());
            Json.print(out, doc);
        } else {
            out.println(verb + " user '" + name + "' (" + MECHANISM.mechanismName() + ").");
        }
    }
}
