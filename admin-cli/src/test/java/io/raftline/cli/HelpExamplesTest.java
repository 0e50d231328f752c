package io.raftline.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Walks the whole picocli command tree: every command's --help ends with at least one runnable example. */
class HelpExamplesTest {

    private static void collect(CommandLine cmd, List<CommandLine> all) {
        all.add(cmd);
        for (CommandLine sub : cmd.getSubcommands().values()) {
            if (!all.contains(sub)) {
                collect(sub, all);
            }
        }
    }

    private static String path(CommandLine cmd) {
        return cmd.getCommandSpec().qualifiedName(" ");
    }

    @Test
    void everyCommandsHelpHasAnExample() {
        CommandLine root = RaftlineCli.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        List<CommandLine> all = new ArrayList<>();
        collect(root, all);
        // the tree as CLI.md draws it, so a command dropped from the tree fails here too
        assertThat(all.stream().map(HelpExamplesTest::path)).contains("raftline topics create", "raftline topics describe",
            "raftline reassign", "raftline leader-election", "raftline configs alter", "raftline perf produce",
            "raftline perf topics", "raftline groups reset-offsets", "raftline quorum add-voter", "raftline help");
        List<String> without = new ArrayList<>();
        for (CommandLine cmd : all) {
            StringWriter help = new StringWriter();
            cmd.usage(new PrintWriter(help));
            String text = help.toString();
            int at = Math.max(text.indexOf("Example:"), text.indexOf("Examples:"));
            // an example is a line that runs this very command
            String afterHeading = at < 0 ? "" : text.substring(at);
            String command = path(cmd) + " ";
            if (afterHeading.lines().skip(1).noneMatch(line -> (line + " ").contains(command))) {
                without.add(path(cmd));
            }
        }
        assertThat(without).as("commands whose --help has no example of themselves").isEmpty();
    }

    @Test
    void helpOfASubcommandThroughTheCliExitsZeroAndShowsItsExample() {
        StringWriter out = new StringWriter();
        int code = RaftlineCli.run(new String[] {"reassign", "--help"}, new PrintWriter(out, true),
            new PrintWriter(new StringWriter(), true));
        assertThat(code).isZero();
        assertThat(out.toString()).contains("Examples:").contains("raftline reassign --plan plan.json --verify");
    }
}
