package io.raftline.tests.deploy;

import java.nio.file.Files;
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
    public static synchronized Optional<String> missing() {
        if (Files.isExecutable(PROMTOOL)) {
            return Optional.empty();
        }
        if (!Files.isExecutable(Path.of("/usr/bin/apt-get")) || !"root".equals(System.getProperty("user.name"))) {
            return Optional.of("no " + PROMTOOL + " and no apt-get as root to install Debian's prometheus package");
        }
        NetnsHosts.Result update = NetnsHosts.exec(Duration.ofMinutes(5), List.of("apt-get", "update", "-q"), null);
        if (update.exitCode() != 0) {
            return Optional.of("apt-get update failed: " + update.err().strip());
        }
        NetnsHosts.Result get = NetnsHosts.exec(Duration.ofMinutes(10), List.of("env", "DEBIAN_FRONTEND=noninteractive",
            "apt-get", "install", "-y", "-q", "--no-install-recommends", "prometheus"), null);
        if (get.exitCode() != 0 || !Files.isExecutable(PROMTOOL)) {
            return Optional.of("apt-get install prometheus failed: " + get.err().strip());
        }
        return Optional.empty();
    }

    /** Runs {@code promtool args…} in {@code dir}. */
    public static Run run(Path dir, String... args) {
        List<String> cmd = new ArrayList<>(List.of(PROMTOOL.toString()));
        cmd.addAll(List.of(args));
        NetnsHosts.Result r = NetnsHosts.exec(Duration.ofMinutes(2), cmd, dir);
        return new Run(r.exitCode(), r.out() + r.err());
    }
}
