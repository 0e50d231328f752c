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
 * Every {@code raftline ...} line in a fenced code block of {@code docs/*.md} parses with the CLI: flags a doc
 * shows exist and take the values it gives. (What the commands do is tested where the feature is.)
 */
class DocCommandsTest {

    static List<String> fencedCommands(Path doc) throws IOException {
        List<String> out = new ArrayList<>();
        boolean inBlock = false;
        for (String line : Files.readAllLines(doc, StandardCharsets.UTF_8)) {
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
        List<String> all = new ArrayList<>();
        try (Stream<Path> docs = Files.list(Path.of("..", "docs"))) {
            for (Path doc : docs.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                for (String command : fencedCommands(doc)) {
                    all.add(command);
                    String[] args = command.substring("raftline ".length()).split(" +");
                    StringWriter sink = new StringWriter();
                    assertThatCode(() -> RaftlineCli.commandLine(new PrintWriter(sink), new PrintWriter(sink))
                        .parseArgs(args)).as(doc.getFileName() + ": " + command).doesNotThrowAnyException();
                }
            }
        }
        assertThat(all).anyMatch(c -> c.contains("flush") || c.contains("perf produce"));
    }
}
