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
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code raftline perf topics}: N topics created one awaited call after another from one client, then deleted. */
@Command(name = "topics", mixinStandardHelpOptions = true, description = "Measures topic creations per second.",
    footer = {"", "Example:", "  raftline perf topics --count 200 --partitions 3 --replication-factor 3"})
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

    static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    @Override
    public Integer call() {
        if (count < 1) {
            throw new CliException("--count must be at least 1");
        }
        if (partitions < 1 || replicationFactor < 1) {
            throw new CliException("--partitions and --replication-factor must be at least 1");
        }
        Histogram micros = new Histogram(3);
        String prefix = "perf-topics-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        List<String> created = new ArrayList<>();
        long start;
        long end;
        PrintWriter out = spec.commandLine().getOut();
        try (Admin admin = options.admin()) {
            start = SystemTime.INSTANCE.nanoseconds();
            PrintWriter progress = options.json() ? spec.commandLine().getErr() : out;
            long lastReportNs = start;
            try {
                for (int i = 0; i < count; i++) {
                    long now = SystemTime.INSTANCE.nanoseconds();
                    if (now - lastReportNs >= PerfProduce.REPORT_INTERVAL_MS * 1_000_000L) {
                        progress.printf("%d of %d topics created, %.1f topics/sec so far.%n", i, count, i / ((now - start) / 1e9));
                        progress.flush();
                        lastReportNs = now;
                    }
                    String name = prefix + i;
                    long begin = SystemTime.INSTANCE.nanoseconds();
                    Futures.get(admin.createTopics(List.of(new NewTopic(name, partitions, replicationFactor))).all());
                    micros.recordValue((SystemTime.INSTANCE.nanoseconds() - begin) / 1000);
                    created.add(name);
                }
                end = SystemTime.INSTANCE.nanoseconds();
            } finally {
                if (!created.isEmpty()) {
                    Futures.get(admin.deleteTopics(created).all());
                }
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
            out.printf("%d topics in %.2f s: %.1f topics/sec; per call avg %.2f ms, p99 %.2f ms%n", count, seconds,
                count / seconds, LatencyStats.ms(micros.getMean()), LatencyStats.ms(micros.getValueAtPercentile(99)));
            out.flush();
        }
        return 0;
    }
}
