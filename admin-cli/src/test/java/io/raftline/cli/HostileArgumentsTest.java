package io.raftline.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Random command lines for every {@code raftline} command (the whole picocli tree walked): its own flags with values
 * of the wrong type (words for numbers, numbers past a long, unknown enum values, unicode), flags without their value,
 * unknown flags and subcommands, stray arguments, duplicated flags. A command line that does not parse exits 2 with
 * exactly one {@code error: } line on stderr (the usage may follow), no stack trace, and never gets as far as running
 * the command, so nothing is contacted: the bootstrap address is a socket of this test's that must see no connection.
 * Command lines that do parse are not run (they would reach a cluster); that they reached the command is checked.
 */
class HostileArgumentsTest {

    private static final long SEED = 20261210L;
    /** The command tree, for looking commands and their options up (built once: picocli's model is costly). */
    private static final CommandLine TREE = RaftlineCli.commandLine(new PrintWriter(new StringWriter()),
        new PrintWriter(new StringWriter()));
    private static final List<List<String>> COMMANDS = commands();

    private ServerSocket bootstrap;

    @BeforeEach
    void listen() throws IOException {
        bootstrap = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        bootstrap.setSoTimeout(1);
    }

    @AfterEach
    void close() throws IOException {
        bootstrap.close();
    }

    /** Every command path below the root, as its words ("topics", "create"). */
    private static List<List<String>> commands() {
        List<List<String>> out = new ArrayList<>();
        walk(TREE, new ArrayList<>(), out);
        return out;
    }

    private static void walk(CommandLine cmd, List<String> path, List<List<String>> out) {
        for (var e : cmd.getSubcommands().entrySet()) {
            if (!e.getValue().getCommandSpec().name().equals(e.getKey())) {
                continue;
            }
            List<String> sub = new ArrayList<>(path);
            sub.add(e.getKey());
            out.add(sub);
            walk(e.getValue(), sub, out);
        }
    }

    private static Gen<String> badValues() {
        return Generate.pick(List.of("", "many", "-1", "0", "1.5", "99999999999999999999", "--", "-", "bogus", "TABLE",
                "json", "earliest", "a=b", "=", "x,,y", "\u00e9", "\ud800", "--help", "127.0.0.1:9092"))
            .mix(strings().allPossible().ofLengthBetween(0, 12), 20)
            .mix(strings().ascii().ofLength(2_000), 3);
    }

    /** Tokens for one command: its flags with odd values or none, unknown flags, stray words. */
    private static Gen<List<String>> tokens(List<String> command) {
        CommandLine cmd = lookup(command);
        List<String> flags = new ArrayList<>();
        for (OptionSpec o : cmd.getCommandSpec().options()) {
            if (!o.usageHelp() && !o.versionHelp()) {
                flags.addAll(List.of(o.names()));
            }
        }
        flags.addAll(List.of("--nope", "-z", "--partitionz", "---", "--topic=", "--output"));
        Gen<List<String>> flagAndValue = Generate.pick(flags).zip(badValues(), integers().between(0, 2),
            (flag, value, shape) -> switch (shape) {
                case 0 -> List.of(flag);
                case 1 -> List.of(flag, value);
                default -> List.of(flag + "=" + value);
            });
        Gen<List<String>> stray = badValues().map(v -> List.of(v));
        return lists().of(flagAndValue.mix(stray, 20)).ofSizeBetween(1, 5).map(parts -> {
            List<String> out = new ArrayList<>();
            parts.forEach(out::addAll);
            return out;
        });
    }

    /** The command these words name, or null when they name none. */
    private static CommandLine lookup(List<String> command) {
        CommandLine cmd = TREE;
        for (String word : command) {
            cmd = cmd == null ? null : cmd.getSubcommands().get(word);
        }
        return cmd;
    }

    @Test
    void aCommandLineThatDoesNotParseExitsTwoWithOneErrorLineAndContactsNothing() {
        Gen<List<String>> command = Generate.pick(COMMANDS).mix(Generate.pick(List.of(List.of("topicz"),
            List.of("topics", "creat"), List.of("--nope"), List.of("groups", "reset-offset"))), 5);
        Gen<List<String>> argv = command.flatMap(c -> tokens(lookup(c) == null ? List.of() : c).map(t -> {
            List<String> out = new ArrayList<>(c);
            out.addAll(t);
            return out;
        }));
        int[] outcomes = new int[2];
        AtomicBoolean ran = new AtomicBoolean();
        // one command line for every example (picocli resets the options before each parse); one that parses is not
        // run: it would reach a cluster (or start one)
        CommandLine cli = RaftlineCli.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        cli.setExecutionStrategy(parsed -> {
            ran.set(true);
            return 0;
        });
        qt().withFixedSeed(SEED).withExamples(600).withShrinkCycles(200).forAll(argv).checkAssert(args -> {
            List<String> full = new ArrayList<>(args);
            if (lookup(args.subList(0, 1)) != null && hasBootstrapOption(args)) {
                full.add("--bootstrap-server");
                full.add("127.0.0.1:" + bootstrap.getLocalPort());
            }
            StringWriter err = new StringWriter();
            ran.set(false);
            cli.setOut(new PrintWriter(new StringWriter(), true));
            cli.setErr(new PrintWriter(err, true));
            int code = cli.execute(full.toArray(new String[0]));
            String stderr = err.toString();
            if (ran.get()) {
                outcomes[0]++;
                assertThat(code).as("a command line that parsed: %s", full).isZero();
                return;
            }
            outcomes[1]++;
            assertThat(code).as("exit code of %s (stderr: %s)", full, stderr).isEqualTo(2);
            assertThat(stderr.lines().filter(l -> l.startsWith("error: ")).count())
                .as("error lines of %s: %s", full, stderr).isEqualTo(1);
            assertThat(stderr).as("no stack trace in the stderr of %s", full).doesNotContain("\tat ", "Caused by:");
            assertNoConnection();
        });
        assertThat(outcomes[0]).as("command lines that parsed").isPositive();
        assertThat(outcomes[1]).as("command lines refused").isPositive();
    }

    private static boolean hasBootstrapOption(List<String> args) {
        CommandLine cmd = lookup(args.subList(0, 1));
        for (int i = 1; i < args.size() && cmd.getSubcommands().containsKey(args.get(i)); i++) {
            cmd = cmd.getSubcommands().get(args.get(i));
        }
        return cmd.getCommandSpec().findOption("--bootstrap-server") != null;
    }

    private void assertNoConnection() {
        try {
            bootstrap.accept().close();
            throw new AssertionError("a command line that did not parse connected to the bootstrap address");
        } catch (SocketTimeoutException expected) {
            // nobody came
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
