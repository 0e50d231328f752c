package io.raftline.cli.command.perf;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.command.Futures;
import io.raftline.cli.output.Json;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewTopic;
import io.raftline.common.SystemTime;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code raftline perf topics}: N topics created one awaited call after another from each of C clients (one by
 * default; each client its own connection and thread, splitting N between them), then deleted.
 */
@Command(name = "topics", mixinStandardHelpOptions = true, description = "Measures topic creations per second.",
    footer = {"", "Examples:", "  raftline perf topics --count 200 --partitions 3 --replication-factor 3",
        "  raftline perf topics --count 400 --partitions 3 --replication-factor 3 --clients 8"})
public final class PerfTopics implements Callable<Integer> {

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = "--count", required = true, paramLabel = "N")
    int count;
    @Option(names = "--partitions", required = true, paramLabel = "P")
    int partitions;
    @Option(names = "--replication-factor", required = true, paramLabel = "R")
    short replicationFactor;
    @Option(names = "--clients", defaultValue = "1", paramLabel = "C",
        description = "Concurrent clients, each awaiting one create after another (default: ${DEFAULT-VALUE}).")
    int clients;

    static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    /** One client's share: topics {@code first..last-1}, each create awaited before the next is sent. */
    private void createRange(Admin admin, String prefix, int first, int last, Histogram micros, List<String> created,
                             AtomicInteger done) {
        for (int i = first; i < last && !Thread.currentThread().isInterrupted(); i++) {
            String name = prefix + i;
            long begin = SystemTime.INSTANCE.nanoseconds();
            Futures.get(admin.createTopics(List.of(new NewTopic(name, partitions, replicationFactor))).all());
            long took = (SystemTime.INSTANCE.nanoseconds() - begin) / 1000;
            synchronized (micros) {
                micros.recordValue(took);
            }
            created.add(name);
            done.incrementAndGet();
        }
    }

    /** Waits for every client, printing progress every few seconds; the first client's failure ends the run. */
    private static void awaitWithProgress(List<Future<?>> runs, PrintWriter progress, long start, AtomicInteger done) {
        long lastReportNs = start;
        for (Future<?> run : runs) {
            while (true) {
                try {
                    run.get(100, TimeUnit.MILLISECONDS);
                    break;
                } catch (TimeoutException e) {
                    long now = SystemTime.INSTANCE.nanoseconds();
                    if (now - lastReportNs >= PerfProduce.REPORT_INTERVAL_MS * 1_000_000L) {
                        int n = done.get();
                        progress.printf("%d topics created, %.1f topics/sec so far.%n", n, n / ((now - start) / 1e9));
                        progress.flush();
                        lastReportNs = now;
                    }
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : new CliException(String.valueOf(e.getCause()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CliException("interrupted");
                }
            }
        }
    }

    @Override
    public Integer call() {
        if (count < 1) {
            throw new CliException("--count must be at least 1");
        }
        if (partitions < 1 || replicationFactor < 1) {
            throw new CliException("--partitions and --replication-factor must be at least 1");
        }
        if (clients < 1 || clients > count) {
            throw new CliException("--clients must be between 1 and --count");
        }
        String prefix = "perf-topics-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        List<Admin> admins = new ArrayList<>();
        List<String> created = Collections.synchronizedList(new ArrayList<>());
        Histogram micros = new Histogram(3);
        AtomicInteger done = new AtomicInteger();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter progress = options.json() ? spec.commandLine().getErr() : out;
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        long start;
        long end;
        try {
            for (int c = 0; c < clients; c++) {
                admins.add(options.admin());
            }
            // each client connected, with the cluster's metadata, before the clock starts
            admins.forEach(a -> Futures.get(a.listTopics().names()));
            start = SystemTime.INSTANCE.nanoseconds();
            List<Future<?>> runs = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                Admin admin = admins.get(c);
                int first = c * count / clients;
                int last = (c + 1) * count / clients;
                runs.add(threads.submit(() -> createRange(admin, prefix, first, last, micros, created, done)));
            }
            awaitWithProgress(runs, progress, start, done);
            end = SystemTime.INSTANCE.nanoseconds();
        } finally {
            threads.shutdownNow();
            try {
                if (!created.isEmpty()) { // a topic created means its client was made
                    Futures.get(admins.get(0).deleteTopics(new ArrayList<>(created)).all());
                }
            } finally {
                admins.forEach(Admin::close);
            }
        }
        double seconds = (end - start) / 1e9;
        ObjectNode perCall = Json.object()
            .put("avg", LatencyStats.ms(micros.getMean()))
            .put("p50", LatencyStats.ms(micros.getValueAtPercentile(50)))
            .put("p99", LatencyStats.ms(micros.getValueAtPercentile(99)))
            .put("max", LatencyStats.ms(micros.getMaxValue()));
        ObjectNode doc = Json.object().put("topics", count).put("topicsPerSec", round(count / seconds));
        doc.set("perCallMs", perCall);
        if (options.json()) {
            Json.print(out, doc);
        } else {
            out.printf("%d topics in %.2f s from %d client(s): %.1f topics/sec; per call avg %.2f ms, p99 %.2f ms%n", count,
                seconds, clients, count / seconds, LatencyStats.ms(micros.getMean()), LatencyStats.ms(micros.getValueAtPercentile(99)));
            out.flush();
        }
        return 0;
    }
}
