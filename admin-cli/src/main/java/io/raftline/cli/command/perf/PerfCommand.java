package io.raftline.cli.command.perf;

import picocli.CommandLine.Command;

/** {@code raftline perf}: the benchmarks that sit beside Kafka's own perf tools. */
@Command(name = "perf", mixinStandardHelpOptions = true,
    description = "Benchmarks: produce, consume, end-to-end latency, topic creation.",
    subcommands = {PerfProduce.class, PerfConsume.class, PerfE2e.class, PerfTopics.class})
public final class PerfCommand {
}
