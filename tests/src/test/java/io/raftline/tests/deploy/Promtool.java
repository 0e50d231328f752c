package io.raftline.tests.deploy;

import io.raftline.tests.cluster.DebianPackages;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Debian's {@code promtool} (package {@code prometheus}), installed with apt-get when it is missing, as
 * {@link NetnsHosts} does for its tools.
 */
public final class Promtool {

    private static final Path PROMTOOL = Path.of("/usr/bin/promtool");

    /** One promtool run. */
    public record Run(int exitCode, String output) {
    }

    private Promtool() {
    }

    /** Why promtool cannot be had here, or empty once it is installed. */
    public static Optional<String> missing() {
        return DebianPackages.ensure(PROMTOOL.toString(), "prometheus");
    }

    /** Runs {@code promtool args…} in {@code dir}. */
    public static Run run(Path dir, String... args) {
        List<String> cmd = new ArrayList<>(List.of(PROMTOOL.toString()));
        cmd.addAll(List.of(args));
        NetnsHosts.Result r = NetnsHosts.exec(Duration.ofMinutes(2), cmd, dir);
        return new Run(r.exitCode(), r.out() + r.err());
    }
}
