package io.raftline.tests.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Installs the Debian packages a test needs when they are missing, as CI's clean machine lacks them (the tests bring
 * what they use rather than depend on the machine): {@code apt-get install} as root, once per JVM and package.
 */
public final class DebianPackages {

    private DebianPackages() {
    }

    /**
     * Makes {@code executable} (an absolute path) present, installing {@code pkg} when it is missing. Returns why it
     * could not be (no apt-get, not root, the install failed), or empty once the executable is there.
     */
    public static Optional<String> ensure(String executable, String pkg) {
        return ensure(List.of(executable), pkg);
    }

    /** Makes every one of {@code executables} present, installing {@code packages} in one go when one is missing. */
    public static Optional<String> ensure(List<String> executables, String... packages) {
        return ensure(executables, Files::isExecutable, packages);
    }

    /**
     * Makes {@code files} (absolute paths, such as a Python module's {@code __init__.py}) present, installing
     * {@code packages} in one go when one is missing.
     */
    public static Optional<String> ensureFiles(List<String> files, String... packages) {
        return ensure(files, Files::isRegularFile, packages);
    }

    private static synchronized Optional<String> ensure(List<String> executables, Predicate<Path> present,
        String... packages) {
        if (executables.stream().allMatch(e -> present.test(Path.of(e)))) {
            return Optional.empty();
        }
        String what = String.join(" ", packages);
        if (!Files.isExecutable(Path.of("/usr/bin/apt-get"))) {
            return Optional.of(executables + " missing and this machine has no apt-get to install " + what);
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of(executables + " missing and installing " + what + " needs root");
        }
        List<String> install = new ArrayList<>(List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y",
            "-q"));
        install.addAll(List.of(packages));
        String failed = run(install);
        if (failed != null) {
            // The package lists may be missing or stale on a fresh machine.
            String update = run(List.of("apt-get", "update", "-q"));
            failed = update != null ? "apt-get update failed: " + update : run(install);
        }
        if (failed != null) {
            return Optional.of("apt-get install " + what + " failed: " + failed);
        }
        return executables.stream().allMatch(e -> present.test(Path.of(e))) ? Optional.empty()
            : Optional.of("apt-get installed " + what + " but one of " + executables + " is still missing");
    }

    /** Runs a command to its end (10 minutes at most); null when it succeeded, else its last output line. */
    private static String run(List<String> command) {
        try {
            Path out = Files.createTempFile("apt", ".log");
            try {
                Process p = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
                if (!p.waitFor(10, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                    return String.join(" ", command) + " did not finish in 10 minutes";
                }
                if (p.exitValue() == 0) {
                    return null;
                }
                List<String> lines = Files.readAllLines(out);
                return lines.isEmpty() ? "exit " + p.exitValue() : lines.get(lines.size() - 1);
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            return e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
