package io.raftline.tests.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.raftline.broker.config.ServerConfig;
import io.raftline.cli.RaftlineCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/migrating-from-kafka.md says only what is true: every Raftline command in its tables parses with the CLI,
 * every Raftline server key exists, every SDK class it names is in the SDK.
 */
class MigrationGuideTest {

    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    private static String section(String heading) throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "migrating-from-kafka.md"), StandardCharsets.UTF_8);
        int start = doc.indexOf("## " + heading);
        assertThat(start).as(heading).isPositive();
        int end = doc.indexOf("\n## ", start + 3);
        return doc.substring(start, end < 0 ? doc.length() : end);
    }

    /** Every backticked text in the second column of the section's table (the Raftline side). */
    private static List<String> raftlineColumn(String heading) throws Exception {
        List<String> out = new ArrayList<>();
        for (String line : section(heading).lines().toList()) {
            String[] cells = line.split("\\|");
            if (!line.startsWith("| ") || cells.length < 3 || cells[2].isBlank() || cells[1].contains("---")
                || cells[1].trim().equals("Kafka") || cells[1].trim().equals("Kafka (KRaft)")
                || cells[1].trim().equals("kafka-clients")) {
                continue;
            }
            Matcher m = CODE.matcher(cells[2]);
            int found = 0;
            while (m.find()) {
                out.add(m.group(1));
                found++;
            }
            assertThat(found).as("a Raftline name in: " + line).isPositive();
        }
        assertThat(out).as(heading).hasSizeGreaterThan(10);
        return out;
    }

    @Test
    void everyCommandParses() throws Exception {
        for (String command : raftlineColumn("Command line")) {
            assertThat(command).startsWith("raftline ");
            String[] args = command.substring("raftline ".length()).split(" ");
            StringWriter sink = new StringWriter();
            assertThatCode(() -> RaftlineCli.commandLine(new PrintWriter(sink), new PrintWriter(sink)).parseArgs(args))
                .as(command).doesNotThrowAnyException();
        }
    }

    @Test
    void everyServerKeyExists() throws Exception {
        for (String key : raftlineColumn("Server configuration")) {
            assertThat(ServerConfig.DEF.names()).as(key).contains(key);
        }
    }

    @Test
    void everySdkClassExists() throws Exception {
        List<String> classes = raftlineColumn("SDK");
        for (String name : classes) {
            assertThatCode(() -> Class.forName(name)).as(name).doesNotThrowAnyException();
        }
        assertThat(classes).allMatch(c -> Arrays.asList(c.split("\\.")).contains("raftline"));
    }
}
