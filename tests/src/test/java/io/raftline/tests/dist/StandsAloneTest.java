package io.raftline.tests.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The repository stands alone: no tracked file (test, script, doc, build file) reaches for a folder beside the
 * checkout, as the tests and docs once did for a shared tools folder there; what the tests and the benchmarks need
 * lives in the repository ({@code tests/scripts/netns-hosts.sh}, {@code tests/scripts/side-by-side.py}, {@code tests/kafka-bench/}).
 */
class StandsAloneTest {

    /** Written in two halves, so that this file does not name them itself. */
    private static final List<String> OUTSIDE = List.of("../" + "shared/", "shared" + "/tools/");

    @Test
    void noTrackedFileReachesOutsideTheRepository() throws Exception {
        Path repo = Path.of("..").toAbsolutePath().normalize();
        List<String> files = trackedFiles(repo);
        Assumptions.assumeTrue(files != null, "not a git checkout with git on the PATH");
        assertThat(files).contains("tests/scripts/netns-hosts.sh", "tests/scripts/side-by-side.py",
            "tests/kafka-bench/pom.xml", "LICENSE", "NOTICE");
        List<String> offenders = new ArrayList<>();
        for (String f : files) {
            Path p = repo.resolve(f);
            if (!Files.isRegularFile(p) || Files.size(p) > 4_000_000) {
                continue;
            }
            String text = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
            for (String needle : OUTSIDE) {
                int at = text.indexOf(needle);
                if (at >= 0) {
                    int line = (int) text.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
                    offenders.add(f + ":" + line + ": " + needle);
                }
            }
        }
        assertThat(offenders).as("references to folders outside the repository").isEmpty();
    }

    @Test
    void theHelpersTheTestsRunAreExecutable() {
        Path repo = Path.of("..").toAbsolutePath().normalize();
        for (String script : List.of("tests/scripts/netns-hosts.sh", "tests/scripts/side-by-side.py",
            "tests/scripts/side-by-side-all.sh", "tests/scripts/peak-rss.py")) {
            assertThat(Files.isExecutable(repo.resolve(script))).as(script + " is executable").isTrue();
        }
    }

    /** {@code git ls-files} of the checkout, or null where that cannot be had. */
    private static List<String> trackedFiles(Path repo) throws InterruptedException {
        try {
            Process git = new ProcessBuilder("git", "-C", repo.toString(), "ls-files", "-z").redirectError(
                ProcessBuilder.Redirect.DISCARD).start();
            byte[] out = git.getInputStream().readAllBytes();
            if (!git.waitFor(60, TimeUnit.SECONDS) || git.exitValue() != 0) {
                return null;
            }
            List<String> files = new ArrayList<>();
            for (String f : new String(out, StandardCharsets.UTF_8).split("\0")) {
                if (!f.isEmpty()) {
                    files.add(f);
                }
            }
            return files;
        } catch (IOException e) {
            return null;
        }
    }
}
