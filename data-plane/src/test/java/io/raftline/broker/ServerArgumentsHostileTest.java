package io.raftline.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Random command lines for the node's own commands ({@code raftline server} and {@code raftline storage ...}, which
 * bin/raftline sends to this main): their flags with odd values or none, unknown flags and subcommands, stray words,
 * config files that do not exist or are not files. Each exits 0, 1 (the command ran and failed: one {@code error: }
 * line, no stack trace) or 2 (it does not parse: one {@code error: } line, then the usage). None starts a node: no
 * generated config names a file a node could start from.
 */
class ServerArgumentsHostileTest {

    private static final long SEED = 20261212L;

    private static Gen<String> words() {
        return Generate.pick(List.of("--config", "--cluster-id", "--ignore-formatted", "--files", "--print-data-log", "--nope",
                "-c", "--config=", "/nonexistent/server.properties", "/dev/null", "/tmp", "", "-", "--", "format", "random-uuid",
                "dump-log", "serve", "storage", "server", "\u00e9", "a\u0000b", "x,,y", "--help"))
            .mix(strings().allPossible().ofLengthBetween(0, 10), 15);
    }

    @Test
    void everyCommandLineExitsZeroOneOrTwoWithOneErrorLineAndNoStackTrace() {
        Gen<List<String>> command = Generate.pick(List.of(List.of("server"), List.of("storage"), List.of("storage", "format"),
            List.of("storage", "random-uuid"), List.of("storage", "dump-log"), List.of("stor"), List.of()));
        Gen<List<String>> argv = command.zip(lists().of(words()).ofSizeBetween(0, 5), (c, w) -> {
            List<String> out = new ArrayList<>(c);
            out.addAll(w);
            return out;
        });
        int[] byCode = new int[3];
        qt().withFixedSeed(SEED).withExamples(400).withShrinkCycles(100).forAll(argv).checkAssert(args -> {
            StringWriter err = new StringWriter();
            int code = ServerMainAccess.run(args.toArray(new String[0]), new PrintWriter(new StringWriter(), true),
                new PrintWriter(err, true));
            String stderr = err.toString();
            assertThat(code).as("exit code of %s (stderr: %s)", args, stderr).isBetween(0, 2);
            byCode[code]++;
            if (code != 0) {
                assertThat(stderr.lines().filter(l -> l.startsWith("error: ")).count()).as("error lines of %s: %s", args, stderr)
                    .isEqualTo(1);
                assertThat(stderr).as("no stack trace for %s", args).doesNotContain("\tat ", "Caused by:");
            }
        });
        assertThat(byCode[1]).as("commands that ran and failed").isPositive();
        assertThat(byCode[2]).as("command lines that did not parse").isPositive();
    }
}
