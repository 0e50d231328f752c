package io.raftline.cli.command.dev;

import io.raftline.cli.CliException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code bin/raftline storage ...} as a child process (the CLI never links the node's code). */
final class StorageTool {

    private StorageTool() {
    }

    /** The id is the last line: JVM options in RAFTLINE_OPTS (a JFR recording, say) may print before it. */
    static String randomUuid(Path home) throws IOException, InterruptedException {
        String[] lines = run(home, List.of("storage", "random-uuid"), null).strip().split("\\R");
        return lines[lines.length - 1].strip();
    }

    static void format(Path home, Path config, String clusterId, Path logDir) throws IOException, InterruptedException {
        run(home, List.of("storage", "format", "--config", config.toString(), "--cluster-id", clusterId), logDir);
    }

    private static String run(Path home, List<String> args, Path logDir) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin/raftline").toString());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (logDir != null) {
            builder.environment().put("RAFTLINE_LOG_DIR", logDir.toString());
        }
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new CliException("raftline " + String.join(" ", args) + " did not finish within 60 s");
        }
        if (process.exitValue() != 0) {
            throw new CliException("raftline " + String.join(" ", args) + " failed: " + output.strip());
        }
        return output;
    }
}
