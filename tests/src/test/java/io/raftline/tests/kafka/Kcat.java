package io.raftline.tests.kafka;

import io.raftline.tests.cluster.DebianPackages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * kcat (librdkafka's command-line client, Debian's package) as a real process. {@link #missing} installs it with
 * apt-get when it is absent and the tests run as root, as the deploy tests install their tools.
 */
final class Kcat {

    static final Path BINARY = Path.of("/usr/bin/kcat");

    record Result(int exitCode, String out, String err) {
    }

    private Kcat() {
    }

    /** Why kcat cannot run here, or empty when it can (installing it first if it can be). */
    static synchronized Optional<String> missing() throws IOException, InterruptedException {
        return DebianPackages.ensure(BINARY.toString(), "kcat");
    }

    static Result kcat(String stdin, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(BINARY.toString());
        cmd.addAll(List.of(args));
        return run(stdin, 60, cmd.toArray(new String[0]));
    }

    static Result run(String stdin, int timeoutSeconds, String... cmd) throws IOException, InterruptedException {
        Path out = Files.createTempFile("kcat-out", ".txt");
        Path err = Files.createTempFile("kcat-err", ".txt");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
            Process p = pb.start();
            if (stdin != null) {
                p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            p.getOutputStream().close();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, Files.readString(out), "timed out after " + timeoutSeconds + " s: " + Files.readString(err));
            }
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
