package io.raftline.tests.console;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Debian's headless Chromium and its chromedriver for the browser tests: installed with apt-get when missing (as the
 * deploy tests install their packages), and the one reason they cannot run when that is impossible here.
 */
final class Chromium {

    static final Path BROWSER = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    static final List<String> FLAGS = List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1400,1000");

    private Chromium() {
    }

    private static boolean present() {
        return Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER);
    }

    /** Empty when Chromium and chromedriver are there (installing them first if it can), else why not. */
    static synchronized Optional<String> missing() {
        if (present()) {
            return Optional.empty();
        }
        if (!Files.isExecutable(Path.of("/usr/bin/apt-get"))) {
            return Optional.of("no chromium/chromedriver and no apt-get to install them (apt-get install chromium chromium-driver)");
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("no chromium/chromedriver and not root to install them (apt-get install chromium chromium-driver)");
        }
        String update = run(5, "apt-get", "update", "-q");
        if (update != null) {
            return Optional.of("apt-get update failed: " + update);
        }
        String install = run(15, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q", "chromium",
            "chromium-driver");
        if (install != null) {
            return Optional.of("apt-get install chromium chromium-driver failed: " + install);
        }
        return present() ? Optional.empty() : Optional.of("apt-get installed chromium but " + BROWSER + " or " + DRIVER
            + " is missing");
    }

    /** Null on exit 0, else the last line of its output. */
    private static String run(int minutes, String... command) {
        try {
            File log = Files.createTempFile("raftline-apt-", ".log").toFile();
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
            if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return "no result within " + minutes + " min";
            }
            if (p.exitValue() == 0) {
                return null;
            }
            List<String> lines = Files.readAllLines(log.toPath());
            return "exit " + p.exitValue() + (lines.isEmpty() ? "" : ": " + lines.get(lines.size() - 1));
        } catch (Exception e) {
            return e.toString();
        }
    }
}
