package io.raftline.tests.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.raftline.cli.RaftlineCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code raftline ...} line in a fenced code block of {@code docs/*.md} and {@code deploy/README.md} parses with
 * the CLI: flags a doc shows exist and take the values it gives. A fence may be indented (inside a list item). (What
 * the commands do is tested where the feature is.)
 */
class DocCommandsTest {

    static List<String> fencedCommands(Path doc) throws IOException {
        List<String> out = new ArrayList<>();
        boolean inBlock = false;
        for (String raw : Files.readAllLines(doc, StandardCharsets.UTF_8)) {
            String line = raw.strip();
            if (line.startsWith("```")) {
                inBlock = !inBlock;
            } else if (inBlock && line.startsWith("raftline ")) {
                int comment = line.indexOf(" #");
                out.add((comment < 0 ? line : line.substring(0, comment)).trim());
            }
        }
        return out;
    }

    @Test
    void everyFencedCommandParses() throws Exception {
        List<Path> docs;
        try (Stream<Path> files = Files.list(Path.of("..", "docs"))) {
            docs = new ArrayList<>(files.filter(p -> p.toString().endsWith(".md")).sorted().toList());
        }
        docs.add(Path.of("..", "deploy", "README.md"));
        List<String> all = new ArrayList<>();
        List<String> deployGuide = new ArrayList<>();
        for (Path doc : docs) {
            for (String command : fencedCommands(doc)) {
                all.add(command);
                if (doc.endsWith(Path.of("deploy", "README.md"))) {
                    deployGuide.add(command);
                }
                String[] args = command.substring("raftline ".length()).split(" +");
                StringWriter sink = new StringWriter();
                assertThatCode(() -> RaftlineCli.commandLine(new PrintWriter(sink), new PrintWriter(sink))
                    .parseArgs(args)).as(doc + ": " + command).doesNotThrowAnyException();
            }
        }
        assertThat(all).anyMatch(c -> c.contains("flush") || c.contains("perf produce"));
        // the deploy guide's security recipes are among them, the indented ones of its rotation steps too
        assertThat(deployGuide).anyMatch(c -> c.startsWith("raftline acls add") && c.contains("--group billing"))
            .anyMatch(c -> c.startsWith("raftline certs issue --ca-dir tls --name b1"));
    }
}
