package io.raftline.tests.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.tests.cluster.DebianPackages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a node does to make {@code meta.properties} survive a power loss, read from the system calls of a real JVM
 * (strace) rather than from a seam in the code: the new content is fsynced before the rename that puts it in place,
 * and the directory is fsynced after it (without that, the rename itself may be lost and the node finds no
 * meta.properties, or the old one, after the power comes back).
 */
class DurableWritesTest {

    @TempDir
    Path tmp;

    @Test
    void metaPropertiesIsFsyncedThenRenamedThenItsDirectoryFsynced() throws Exception {
        Optional<String> missing = DebianPackages.ensure("/usr/bin/strace", "strace");
        assertThat(missing).as("strace is needed to read the system calls").isEmpty();
        Path dir = tmp.resolve("meta");
        Path trace = tmp.resolve("trace.txt");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of("/usr/bin/strace", "-f", "-y", "-qq", "-o", trace.toString(),
            "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", java, "-Xshare:off", "-cp",
            System.getProperty("java.class.path"), DurableWritesMain.class.getName(), dir.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(tmp.resolve("out.txt").toFile()).start();
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("the traced JVM finished").isTrue();
        assertThat(p.exitValue()).as("the traced JVM's exit (output: %s)", Files.readString(tmp.resolve("out.txt"))).isZero();

        Path file = dir.resolve("meta.properties");
        Path temp = dir.resolve("meta.properties.tmp");
        List<String> calls = new ArrayList<>();
        for (String line : Files.readAllLines(trace)) {
            String call = line.replaceFirst("^\\d+\\s+", "");
            if (call.startsWith("fsync(") || call.startsWith("fdatasync(")) {
                if (call.contains("<" + temp + ">")) {
                    calls.add("sync temp");
                } else if (call.contains("<" + file + ">")) {
                    calls.add("sync file");
                } else if (call.contains("<" + dir + ">")) {
                    calls.add("sync dir");
                }
            } else if (call.startsWith("rename") && call.contains("\"" + temp + "\"") && call.contains("\"" + file + "\"")) {
                calls.add("rename");
            }
        }
        assertThat(calls).as("the durable-write system calls on %s (trace in %s)", dir, trace)
            .containsExactly("sync temp", "rename", "sync dir");
        assertThat(Files.readString(file)).contains("directory.id=BBBBBBBBBBBBBBBBBBBBBB");
    }
}
