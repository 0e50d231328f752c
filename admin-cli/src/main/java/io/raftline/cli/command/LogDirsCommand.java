package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.Errors;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.ReplicaLogInfo;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code raftline log-dirs}: where each broker keeps its replicas, and how big and how far behind they are. */
@Command(name = "log-dirs", description = "Describes the log dirs of brokers (as kafka-log-dirs).", mixinStandardHelpOptions = true,
    subcommands = {LogDirsCommand.Describe.class},
    footer = {"", "Example:", "  raftline log-dirs describe --broker 1,2 --topic-list orders"})
public final class LogDirsCommand {

    /** How long one broker may take to answer before it is reported as not answering. */
    static final Duration PER_BROKER_TIMEOUT = Duration.ofSeconds(10);

    @Command(name = "describe", mixinStandardHelpOptions = true,
        description = "Per broker and log dir, every replica with its size and its lag (the leader's log end offset minus "
            + "the replica's). A broker that does not answer is reported, and the command then exits 1.",
        footer = {"", "Examples:", "  raftline log-dirs describe", "  raftline log-dirs describe --broker 1 --output json"})
    static final class Describe implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = {"--broker", "--broker-list"}, split = ",", paramLabel = "ID[,ID...]",
            description = "These brokers (default: every live broker).")
        List<Integer> brokers = new ArrayList<>();
        @Option(names = "--topic-list", split = ",", paramLabel = "T[,T...]", description = "Only these topics' replicas.")
        List<String> topics = new ArrayList<>();

        @Override
        public Integer call() {
            Map<Integer, List<ReplicaLogInfo>> answers = new TreeMap<>();
            Map<Integer, String> failures = new TreeMap<>();
            try (Admin admin = options.admin()) {
                List<Integer> ids = brokers.isEmpty()
                    ? Futures.get(admin.describeCluster().nodes()).stream().map(Node::id).sorted().toList()
                    : List.copyOf(new TreeSet<>(brokers));
                Map<Integer, CompletableFuture<List<ReplicaLogInfo>>> byBroker = admin.describeLogs(ids, PER_BROKER_TIMEOUT)
                    .values();
                for (int id : ids) {
                    try {
                        answers.put(id, byBroker.get(id).get());
                    } catch (ExecutionException e) {
                        failures.put(id, Errors.describe(e));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new CliException("interrupted");
                    }
                }
            }
            Map<TopicPartition, Long> leaderEnds = new LinkedHashMap<>();
            answers.values().forEach(list -> list.stream().filter(ReplicaLogInfo::isLeader)
                .forEach(r -> leaderEnds.put(r.partition(), r.logEndOffset())));
            print(answers, failures, leaderEnds);
            if (!failures.isEmpty()) {
                throw new CliException("broker(s) " + failures.keySet() + " did not answer: "
                    + String.join("; ", failures.values()));
            }
            return 0;
        }

        /** The leader's log end minus this replica's, or null when the leader was not among the answers. */
        private static Long lag(ReplicaLogInfo r, Map<TopicPartition, Long> leaderEnds) {
            Long end = leaderEnds.get(r.partition());
            return end == null ? null : Math.max(0, end - r.logEndOffset());
        }

        /** Per log dir, the replicas asked for, in partition order. */
        private Map<String, List<ReplicaLogInfo>> byDir(List<ReplicaLogInfo> replicas) {
            Map<String, List<ReplicaLogInfo>> out = new TreeMap<>();
            replicas.stream().filter(r -> topics.isEmpty() || topics.contains(r.partition().topic()))
                .sorted(Comparator.comparing((ReplicaLogInfo r) -> r.partition().topic())
                    .thenComparingInt(r -> r.partition().partition()))
                .forEach(r -> out.computeIfAbsent(r.logDir() == null ? "unknown" : r.logDir(), d -> new ArrayList<>()).add(r));
            return out;
        }

        private void print(Map<Integer, List<ReplicaLogInfo>> answers, Map<Integer, String> failures,
                           Map<TopicPartition, Long> leaderEnds) {
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                // kafka-log-dirs --describe's shape, with the broker's error when it did not answer
                ObjectNode doc = Json.object().put("version", 1);
                ArrayNode array = doc.putArray("brokers");
                TreeSet<Integer> ids = new TreeSet<>(answers.keySet());
                ids.addAll(failures.keySet());
                for (int id : ids) {
                    ObjectNode b = array.addObject().put("broker", id);
                    if (failures.containsKey(id)) {
                        b.put("error", failures.get(id));
                    } else {
                        b.putNull("error");
                    }
                    ArrayNode dirs = b.putArray("logDirs");
                    byDir(answers.getOrDefault(id, List.of())).forEach((dir, replicas) -> {
                        ObjectNode d = dirs.addObject().put("logDir", dir).putNull("error");
                        ArrayNode parts = d.putArray("partitions");
                        for (ReplicaLogInfo r : replicas) {
                            ObjectNode p = parts.addObject().put("partition", r.partition().topic() + "-" + r.partition().partition())
                                .put("size", r.sizeBytes());
                            Long lag = lag(r, leaderEnds);
                            if (lag == null) {
                                p.putNull("offsetLag");
                            } else {
                                p.put("offsetLag", lag);
                            }
                            p.put("isFuture", false).put("leader", r.isLeader());
                        }
                    });
                }
                Json.print(out, doc);
                return;
            }
            Table table = new Table("BROKER", "LOG-DIR", "TOPIC", "PARTITION", "SIZE", "OFFSET-LAG", "LEADER");
            answers.forEach((id, replicas) -> byDir(replicas).forEach((dir, list) -> list.forEach(r ->
                table.row(id, dir, r.partition().topic(), r.partition().partition(), r.sizeBytes(), lag(r, leaderEnds),
                    r.isLeader() ? "yes" : "no"))));
            table.print(out);
        }
    }
}
