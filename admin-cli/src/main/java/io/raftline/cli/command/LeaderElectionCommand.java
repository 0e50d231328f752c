package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.Errors;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.ElectionType;
import io.raftline.client.admin.TopicDescription;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.errors.ElectionNotNeededException;
import io.raftline.common.SystemTime;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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

    /** How long to wait for an elected leader to show in the metadata before printing what is there. */
    private static final Duration LEADER_WAIT = Duration.ofSeconds(5);

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = {"--type", "--election-type"}, required = true, paramLabel = "preferred|unclean",
        description = "preferred: the first replica leads again; unclean: a leaderless partition takes any live replica.")
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
        Map<TopicPartition, Integer> leaders;
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
            leaders = electedLeaders(admin, election, results);
        }
        PrintWriter out = spec.commandLine().getOut();
        int failed = 0;
        ObjectNode doc = Json.object();
        ArrayNode elected = doc.putArray("elected");
        ArrayNode notNeeded = doc.putArray("notNeeded");
        ArrayNode failures = doc.putArray("failed");
        Table table = new Table("TOPIC", "PARTITION", "RESULT", "LEADER", "WHY");
        for (Map.Entry<TopicPartition, Optional<Throwable>> e : new TreeMap<>(results).entrySet()) {
            TopicPartition tp = e.getKey();
            ObjectNode p = Json.object().put("topic", tp.topic()).put("partition", tp.partition());
            Integer leader = leaders.get(tp);
            if (e.getValue().isEmpty()) {
                elected.add(p.put("leader", leader == null ? -1 : leader));
                table.row(tp.topic(), tp.partition(), "elected", leader, null);
            } else if (Errors.unwrap(e.getValue().get()) instanceof ElectionNotNeededException) {
                String why = Errors.describe(e.getValue().get());
                notNeeded.add(p.put("reason", why));
                table.row(tp.topic(), tp.partition(), "not needed", leader, why);
            } else {
                failed++;
                String why = Errors.describe(e.getValue().get());
                failures.add(p.put("error", why));
                table.row(tp.topic(), tp.partition(), "failed", leader, why);
            }
        }
        if (options.json()) {
            doc.put("ok", failed == 0);
            Json.print(out, doc);
        } else {
            table.print(out);
            out.println("Elected a new leader for " + elected.size() + " partition(s); " + notNeeded.size()
                + " needed no election; " + failed + " failed.");
            out.flush();
        }
        if (failed > 0) {
            throw new CliException(failed + " partition(s) could not elect a leader");
        }
        return 0;
    }

    /**
     * The leader of each partition the election named, as the metadata shows it afterwards. An elected partition's
     * new leader can take a moment to reach the broker that answers, so this waits briefly (bounded) for it.
     */
    private static Map<TopicPartition, Integer> electedLeaders(Admin admin, ElectionType election,
                                                          Map<TopicPartition, Optional<Throwable>> results) {
        Set<String> topics = new TreeSet<>();
        results.keySet().forEach(tp -> topics.add(tp.topic()));
        Map<TopicPartition, Integer> leaders = new HashMap<>();
        long deadline = SystemTime.INSTANCE.nanoseconds() + LEADER_WAIT.toNanos();
        while (true) {
            leaders.clear();
            Map<String, TopicDescription> described = new HashMap<>();
            for (String topic : topics) {
                try {
                    described.putAll(Futures.get(admin.describeTopics(List.of(topic)).allTopicNames()));
                } catch (CliException e) {
                    // an unknown topic named in the election: its failure is already in the results
                }
            }
            boolean settled = true;
            for (Map.Entry<TopicPartition, Optional<Throwable>> e : results.entrySet()) {
                TopicPartition tp = e.getKey();
                TopicDescription d = described.get(tp.topic());
                TopicPartitionInfo info = d == null ? null : d.partitions().stream()
                    .filter(p -> p.partition() == tp.partition()).findFirst().orElse(null);
                Integer leader = info == null || info.leader() == null ? null : info.leader().id();
                if (leader != null) {
                    leaders.put(tp, leader);
                }
                if (e.getValue().isEmpty() && info != null && !isElected(election, info, leader)) {
                    settled = false;
                }
            }
            if (settled || SystemTime.INSTANCE.nanoseconds() > deadline) {
                return leaders;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return leaders;
            }
        }
    }

    /** A preferred election is visible once the first replica leads; an unclean one once there is a leader at all. */
    private static boolean isElected(ElectionType election, TopicPartitionInfo info, Integer leader) {
        if (leader == null) {
            return false;
        }
        return election != ElectionType.PREFERRED || info.replicas().isEmpty() || info.replicas().get(0).id() == leader;
    }
}
