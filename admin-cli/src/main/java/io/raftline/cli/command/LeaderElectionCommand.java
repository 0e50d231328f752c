package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.Errors;
import io.raftline.cli.output.Json;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.ElectionType;
import io.raftline.client.admin.TopicDescription;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.errors.ElectionNotNeededException;
import java.io.PrintWriter;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code raftline leader-election}: preferred or unclean elections, as kafka-leader-election. */
@Command(name = "leader-election", mixinStandardHelpOptions = true,
    description = "Moves leadership to the preferred replica, or elects outside the ISR (unclean).",
    footer = {"", "Examples:", "  raftline leader-election --type preferred --all-topic-partitions",
        "  raftline leader-election --type unclean --topic orders --partition 0"})
public final class LeaderElectionCommand implements Callable<Integer> {

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = "--type", required = true, paramLabel = "preferred|unclean")
    String type;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    static final class Target {
        @ArgGroup(exclusive = false)
        One one;
        @Option(names = "--all-topic-partitions", required = true)
        boolean all;
    }

    static final class One {
        @Option(names = "--topic", required = true, paramLabel = "T")
        String topic;
        @Option(names = "--partition", paramLabel = "P")
        Integer partition;
    }

    @Override
    public Integer call() {
        ElectionType election = switch (type.toLowerCase(Locale.ROOT)) {
            case "preferred" -> ElectionType.PREFERRED;
            case "unclean" -> ElectionType.UNCLEAN;
            default -> throw new CliException("--type must be preferred or unclean, got '" + type + "'");
        };
        Map<TopicPartition, Optional<Throwable>> results;
        try (Admin admin = options.admin()) {
            Set<TopicPartition> partitions = new LinkedHashSet<>();
            if (target.one != null) {
                if (target.one.partition != null) {
                    partitions.add(new TopicPartition(target.one.topic, target.one.partition));
                } else {
                    TopicDescription d = Futures.get(admin.describeTopics(List.of(target.one.topic)).allTopicNames())
                        .get(target.one.topic);
                    d.partitions().forEach(p -> partitions.add(new TopicPartition(d.name(), p.partition())));
                }
            }
            results = Futures.get(admin.electLeaders(election, partitions).partitions());
        }
        PrintWriter out = spec.commandLine().getOut();
        int failed = 0;
        ObjectNode doc = Json.object();
        ArrayNode elected = doc.putArray("elected");
        ArrayNode notNeeded = doc.putArray("notNeeded");
        ArrayNode failures = doc.putArray("failed");
        for (Map.Entry<TopicPartition, Optional<Throwable>> e : new TreeMap<>(results).entrySet()) {
            TopicPartition tp = e.getKey();
            ObjectNode p = Json.object().put("topic", tp.topic()).put("partition", tp.partition());
            if (e.getValue().isEmpty()) {
                elected.add(p);
            } else if (Errors.unwrap(e.getValue().get()) instanceof ElectionNotNeededException) {
                notNeeded.add(p);
            } else {
                failed++;
                failures.add(p.put("error", Errors.describe(e.getValue().get())));
            }
        }
        if (options.json()) {
            doc.put("ok", failed == 0);
            Json.print(out, doc);
        } else {
            out.println("Elected a new leader for " + elected.size() + " partition(s); " + notNeeded.size()
                + " already had the right leader; " + failed + " failed.");
            failures.forEach(f -> out.println("  " + f.get("topic").asText() + "-" + f.get("partition").asInt() + ": "
                + f.get("error").asText()));
            out.flush();
        }
        if (failed > 0) {
            throw new CliException(failed + " partition(s) could not elect a leader");
        }
        return 0;
    }
}
