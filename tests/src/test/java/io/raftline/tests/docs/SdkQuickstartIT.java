package io.raftline.tests.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/sdk.md "Getting it" works as written: its shell commands, run one after another against a real cluster,
 * install the SDK from a checkout, build {@code examples/sdk-quickstart} against the installed artifact and send and
 * receive a record, printing what the doc says they print.
 *
 * <p>The checkout is a copy under {@code target/} (the poms, {@code checkstyle.xml} and the sources of the modules
 * the SDK is built from, and {@code examples/}): the nested build must not rewrite the jars of the build that runs
 * this test. Each {@code mvn} command gets a private local repository under {@code target/} and a settings file whose
 * only mirror is {@code ~/.m2/repository} as a {@code file:} repository, so third-party artifacts come from there
 * (no network) and nothing is written to {@code ~/.m2}; Raftline's own artifacts can only come from the install
 * step (a snapshot installed in {@code ~/.m2} has no remote metadata there, so it is never resolved).
 */
@Timeout(1200)
class SdkQuickstartIT {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String DOC_BOOTSTRAP = "127.0.0.1:9092";
    private static final Duration SETTLE = Duration.ofSeconds(90);

    private static String section(String heading) throws IOException {
        String doc = Files.readString(ROOT.resolve("docs").resolve("sdk.md"), StandardCharsets.UTF_8);
        int start = doc.indexOf("## " + heading + "\n");
        assertThat(start).as(heading).isPositive();
        int end = doc.indexOf("\n## ", start + 3);
        return doc.substring(start, end < 0 ? doc.length() : end);
    }

    /** Every line of the section's {@code ```sh} blocks, in order. */
    private static List<String> shellLines(String section) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("```sh\n(.*?)```", Pattern.DOTALL).matcher(section);
        while (m.find()) {
            m.group(1).lines().map(String::trim).filter(l -> !l.isEmpty()).forEach(out::add);
        }
        return out;
    }

    @Test
    void theGettingItCommandsInstallTheSdkAndTheQuickstartSendsAndReceivesARecord() throws Exception {
        String section = section("Getting it");
        List<String> commands = shellLines(section);
        assertThat(commands).as("the section's commands").anyMatch(c -> c.startsWith("mvn ") && c.contains(" install"))
            .anyMatch(c -> c.startsWith("cd ")).anyMatch(c -> c.contains("exec:java@producer"))
            .anyMatch(c -> c.contains("exec:java@consumer"));
        Matcher promised = Pattern.compile("The producer prints `([^`]+)`, the consumer\\s+`([^`]+)`").matcher(section);
        assertThat(promised.find()).as("the section says what the examples print").isTrue();

        Path work = Path.of("target", "sdk-quickstart").toAbsolutePath();
        deleteRecursively(work);
        Path checkout = copyCheckout(work.resolve("checkout"));
        Path repo = work.resolve("repo");
        Path settings = work.resolve("settings.xml");
        Files.writeString(settings, "<settings><mirrors><mirror><id>local-m2</id><mirrorOf>*</mirrorOf><url>"
            + Path.of(System.getProperty("user.home"), ".m2", "repository").toUri() + "</url></mirror></mirrors></settings>\n");

        List<String> outputs = new ArrayList<>();
        try (TestCluster cluster = TestCluster.builder().combined(1).start()) {
            cluster.awaitBrokersActive(SETTLE);
            Cli cli = new Cli(cluster.bootstrap());
            Path dir = checkout;
            int step = 0;
            for (String command : commands) {
                String line = command.replace(DOC_BOOTSTRAP, cluster.bootstrap());
                if (line.startsWith("cd ")) {
                    dir = dir.resolve(line.substring(3).trim()).normalize();
                } else if (line.startsWith("raftline ")) {
                    Cli.Result r = cli.run(line.substring("raftline ".length()).split(" +"));
                    assertThat(r.exitCode()).as(command + ": " + r).isZero();
                } else if (line.startsWith("mvn ")) {
                    outputs.add(run(line + " -s " + settings + " -Dmaven.repo.local=" + repo, dir,
                        work.resolve("step-" + (++step) + ".log")));
                } else {
                    throw new AssertionError("the doc has a command this test cannot run as written: " + command);
                }
            }
        }
        assertThat(String.join("\n", outputs)).contains(promised.group(1)).contains(promised.group(2));
        try (Stream<Path> installed = Files.list(repo.resolve("io").resolve("raftline"))) {
            assertThat(installed.map(p -> p.getFileName().toString())).as("Raftline's artifacts in the private repository")
                .containsExactlyInAnyOrder("raftline-parent", "raftline-common", "raftline-proto", "raftline-client-sdk");
        }
    }

    /** Runs one shell command line in {@code dir}; returns its output (stdout and stderr), failing on a non-zero exit. */
    private static String run(String commandLine, Path dir, Path log) throws Exception {
        Process p = new ProcessBuilder("bash", "-c", commandLine).directory(dir.toFile()).redirectErrorStream(true)
            .redirectOutput(log.toFile()).start();
        boolean done = p.waitFor(10, TimeUnit.MINUTES);
        if (!done) {
            p.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(done && p.exitValue() == 0).as("`" + commandLine + "` in " + dir + " (exit "
            + (done ? p.exitValue() : "none: timed out") + "):\n" + tail(output)).isTrue();
        return output;
    }

    private static String tail(String output) {
        List<String> lines = output.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /** The parts of the checkout the SDK's build reads: every pom, checkstyle.xml, the SDK's modules, examples/. */
    private static Path copyCheckout(Path to) throws IOException {
        Files.createDirectories(to);
        for (String file : List.of("pom.xml", "checkstyle.xml", "LICENSE", "NOTICE")) {
            Files.copy(ROOT.resolve(file), to.resolve(file));
        }
        Matcher modules = Pattern.compile("<module>([^<]+)</module>").matcher(Files.readString(ROOT.resolve("pom.xml")));
        while (modules.find()) {
            Path module = to.resolve(modules.group(1));
            Files.createDirectories(module);
            Files.copy(ROOT.resolve(modules.group(1)).resolve("pom.xml"), module.resolve("pom.xml"));
        }
        for (String tree : List.of("common/src", "proto/src", "client-sdk/src", "examples")) {
            copyTree(ROOT.resolve(tree), to.resolve(tree));
        }
        return to;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path p : paths.filter(p -> !from.relativize(p).toString().contains("target")).toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
