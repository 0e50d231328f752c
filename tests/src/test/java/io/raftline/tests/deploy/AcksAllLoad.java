package io.raftline.tests.deploy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code raftline produce --acks all --report-acks} fed by a generator thread at a fixed rate (at most
 * {@code maxRecords}), with a reader thread that keeps every acknowledged line. {@link #finish} closes stdin,
 * waits for the producer to drain and exit, and returns what happened.
 */
final class AcksAllLoad implements AutoCloseable {

    /** The outcome: records sent, acknowledged lines, the producer's exit code and its error lines. */
    record Outcome(int sent, Set<String> acked, int exitCode, List<String> errors) {
    }

    private final Process process;
    private final Path stderr;
    private final Thread generator;
    private final Thread reader;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger sent = new AtomicInteger();
    private final Set<String> acked = ConcurrentHashMap.newKeySet();

    AcksAllLoad(ProcessBuilder producer, Path stderr, int perSecond, int maxRecords) throws IOException {
        this.stderr = stderr;
        producer.redirectError(stderr.toFile());
        process = producer.start();
        long periodNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
        generator = new Thread(() -> {
            try (OutputStream in = process.getOutputStream()) {
                long next = System.nanoTime();
                for (int i = 0; i < maxRecords && !stop.get(); i++) {
                    in.write(("load-" + i + "\n").getBytes(StandardCharsets.UTF_8));
                    in.flush();
                    sent.incrementAndGet();
                    next += periodNanos;
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                }
            } catch (IOException | InterruptedException e) {
                stop.set(true);
            }
        }, "load-generator");
        reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    String[] f = line.split("\t", 3);
                    if (f.length == 3) {
                        acked.add(f[2]);
                    }
                }
            } catch (IOException e) {
                // the producer exited; finish() reports its exit code
            }
        }, "load-acks");
        generator.start();
        reader.start();
    }

    int acked() {
        return acked.size();
    }

    /** Stops the producer at once (a step failed before {@link #finish}); does nothing once it has exited. */
    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        generator.join(10_000);
        reader.join(10_000);
    }

    Outcome finish() throws InterruptedException, IOException {
        stop.set(true);
        generator.join(10_000);
        boolean exited = process.waitFor(180, TimeUnit.SECONDS);
        if (!exited) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        reader.join(10_000);
        List<String> errors = Files.readAllLines(stderr).stream().filter(l -> l.startsWith("error:")).toList();
        return new Outcome(sent.get(), Set.copyOf(acked), exited ? process.exitValue() : -1, errors);
    }
}
