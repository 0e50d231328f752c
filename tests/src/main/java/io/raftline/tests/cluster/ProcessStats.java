package io.raftline.tests.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a running JVM (a node, a Kafka broker) holds, read from outside: fields of {@code /proc/PID/status}, its open
 * files, and its heap right after a full collection through {@code jcmd}. One place for the soak, the scale bench and
 * the overload run.
 */
public final class ProcessStats {

    private static final Pattern HEAP_USED = Pattern.compile("(?m)^\\s*(?:def new generation|tenured generation|"
        + "garbage-first heap|PSYoungGen|ParOldGen|ZHeap)\\s+total \\d+K, used (\\d+)K");

    private ProcessStats() {
    }

    /**
     * A numeric field of {@code /proc/PID/status} ({@code VmRSS}, {@code VmHWM} in KiB; {@code Threads}), or -1 if
     * the process is gone.
     *
     * @throws IllegalStateException if the process runs and has no such field
     */
    public static long status(long pid, String field) {
        String status;
        try {
            status = Files.readString(Path.of("/proc", Long.toString(pid), "status"));
        } catch (NoSuchFileException e) {
            return -1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(field) + ":\\s+(\\d+)").matcher(status);
        if (!m.find()) {
            throw new IllegalStateException("no " + field + " in /proc/" + pid + "/status");
        }
        return Long.parseLong(m.group(1));
    }

    /** How many files the process has open ({@code /proc/PID/fd}). */
    public static int openFiles(long pid) {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return (int) fds.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The heap in use right after a full collection, in KiB: {@code GC.run}, then {@code GC.heap_info}, in one
     * {@code jcmd PID -f FILE} (a JVM of its own).
     */
    public static long heapAfterGcKib(long pid) {
        return heapUsedKib(jcmd(pid, "GC.run\nGC.heap_info\n"));
    }

    /** The sum of the generations' "used" in a {@code GC.heap_info} answer. */
    public static long heapUsedKib(String heapInfo) {
        Matcher m = HEAP_USED.matcher(heapInfo);
        long used = 0;
        boolean any = false;
        while (m.find()) {
            used += Long.parseLong(m.group(1));
            any = true;
        }
        if (!any) {
            throw new IllegalStateException("no heap figures in GC.heap_info:\n" + heapInfo);
        }
        return used;
    }

    /** Runs {@code commands} (one per line) in the JVM {@code pid} with {@code jcmd PID -f FILE}; its output. */
    public static String jcmd(long pid, String commands) {
        Path file = null;
        try {
            file = Files.createTempFile("jcmd-", ".txt");
            Files.writeString(file, commands, StandardCharsets.UTF_8);
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid), "-f", file.toString()).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("jcmd " + pid + " " + commands.strip().replace('\n', ',') + ": " + out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    // a temporary file left behind
                }
            }
        }
    }
}
