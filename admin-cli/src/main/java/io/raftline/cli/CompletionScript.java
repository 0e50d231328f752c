package io.raftline.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.AutoComplete;

/**
 * Writes the bash completion script for {@code raftline}, generated from the command tree itself so it never
 * drifts from the commands. Run by the build (admin-cli's prepare-package); the distribution ships the result as
 * {@code share/bash-completion/completions/raftline}. Fails the build if the script cannot be written.
 */
public final class CompletionScript {

    private CompletionScript() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: CompletionScript <output file>");
        }
        Path out = Path.of(args[0]).toAbsolutePath();
        Files.createDirectories(out.getParent());
        StringWriter sink = new StringWriter();
        PrintWriter writer = new PrintWriter(sink);
        Files.writeString(out, AutoComplete.bash("raftline", RaftlineCli.commandLine(writer, writer)));
    }
}
