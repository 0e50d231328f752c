package io.raftline.tests.groups;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link GroupConsumerMain} in a JVM of its own, with what it printed: its assignment and the records it read. */
final class ConsumerProcess implements AutoCloseable {

    private final Process process;
    private final Thread reader;
    private volatile String assignment = "";
    private volatile String status = "";
    /** "partition:offset:value" of every record it printed. */
    final Set<String> records = ConcurrentHashMap.newKeySet();
    final Set<String> values = ConcurrentHashMap.newKeySet();

    ConsumerProcess(String bootstrap, String group, String topic, String clientId, int sessionTimeoutMs) {
        this(bootstrap, group, topic, clientId, sessionTimeoutMs, null);
    }

    /** As above; the process's stderr (its log) goes to {@code logFile} when given, kept for diagnosis with the nodes' logs. */
    ConsumerProcess(String bootstrap, String group, String topic, String clientId, int sessionTimeoutMs, Path logFile) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Dlog4j2.configurationFile=" + (logFile == null ? "log4j2-test.xml" : "log4j2-consumer-debug.xml"),
            "-cp", System.getProperty("java.class.path"),
            GroupConsumerMain.class.getName(), bootstrap, group, topic, clientId, Integer.toString(sessionTimeoutMs)));
        try {
            process = new ProcessBuilder(cmd)
                .redirectError(logFile == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        reader = new Thread(this::read, "read-" + clientId);
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("A ")) {
                    assignment = line.substring(2);
                } else if (line.startsWith("S ")) {
                    status = line.substring(2);
                } else if (line.startsWith("R ")) {
                    String[] f = line.split(" ", 4);
                    records.add(f[1] + ":" + f[2] + ":" + f[3]);
                    values.add(f[3]);
                }
            }
        } catch (IOException ignored) {
            // the process died
        }
    }

    /** The partitions it owns as it last said, e.g. "t-0,t-3" (empty: none). */
    String assignment() {
        return assignment;
    }

    /** Its last status line: position per owned partition, e.g. "p0@120 p3@97". */
    String status() {
        return status;
    }

    /** The highest offset it printed per partition. */
    java.util.Map<Integer, Long> highestOffsets() {
        java.util.Map<Integer, Long> out = new java.util.TreeMap<>();
        for (String r : records) {
            String[] f = r.split(":", 3);
            out.merge(Integer.parseInt(f[0]), Long.parseLong(f[1]), Math::max);
        }
        return out;
    }

    int assignedCount() {
        return assignment.isEmpty() ? 0 : assignment.split(",").length;
    }

    long pid() {
        return process.pid();
    }

    /** SIGKILL: no leave, no commit. */
    void kill9() {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assignment = "";
    }

    @Override
    public void close() {
        kill9();
    }
}
