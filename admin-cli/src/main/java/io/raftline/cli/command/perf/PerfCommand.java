package io.raftline.cli.command.perf;

import picocli.CommandLine.Command;

/** {@code raftline perf}: the benchmarks that sit beside Kafka's own perf tools. */
@Command(name = "perf", mixinStandardHelpOptions = true,
    description = "Benchmarks: produce, consume, end-to-end latency, topic creation.",
    subcommands = {PerfProduce.class, PerfConsume.class, PerfE2e.class, PerfTopics.class},
    footer = {"", "Examples:", "  raftline perf produce --topic bench --num-records 100000 --record-size 1024 --throughput -1",
        "  raftline perf consume --topic bench --messages 100000"})
public final class PerfCommand {
}
