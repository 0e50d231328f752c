package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.AlterConfigOp;
import io.raftline.client.admin.BrokerDescription;
import io.raftline.client.admin.ConfigEntry;
import io.raftline.client.admin.ConfigResource;
import io.raftline.client.admin.ListTopicsOptions;
import io.raftline.client.admin.NewPartitions;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.admin.ReplicaLogInfo;
import io.raftline.client.admin.TopicDescription;
import io.raftline.client.admin.TopicListing;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.errors.TopicExistsException;
import io.raftline.client.errors.UnknownTopicOrPartitionException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code raftline topics}: create, list, describe, alter, delete. */
@Command(name = "topics", description = "Creates, lists, describes, alters and deletes topics.",
    mixinStandardHelpOptions = true,
    subcommands = {TopicsCommand.Create.class, TopicsCommand.ListTopics.class, TopicsCommand.Describe.class,
        TopicsCommand.Alter.class, TopicsCommand.Delete.class},
    footer = {"", "Examples:", "  raftline topics create --topic orders --partitions 6 --replication-factor 3",
        "  raftline topics describe --under-replicated-partitions"})
public final class TopicsCommand {

    /** How long `describe` waits for a leader's offsets before printing null. */
    static final Duration OFFSETS_TIMEOUT = Duration.ofSeconds(2);

    @Command(name = "create", mixinStandardHelpOptions = true,
        description = "Creates a topic; returns once it is in the committed metadata.",
        footer = {"", "Examples:", "  raftline topics create --topic orders --partitions 6 --replication-factor 3 "
            + "--config retention.ms=86400000",
            "  raftline topics create --topic orders --replica-assignment 1:2:3,2:3:1 --if-not-exists"})
    static final class Create implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--topic", required = true, paramLabel = "T")
        String topic;
        @Option(names = "--partitions", paramLabel = "P", description = "Default: the broker's num.partitions.")
        Integer partitions;
        @Option(names = "--replication-factor", paramLabel = "R",
            description = "Default: the broker's default.replication.factor.")
        Short replicationFactor;
        @Option(names = "--replica-assignment", paramLabel = "B:B[,B:B...]",
            description = "Each partition's replicas, preferred leader first: partitions separated by commas, broker ids "
                + "by colons; the partition count is the number of groups (not with --partitions or --replication-factor).")
        String replicaAssignment;
        @Option(names = "--if-not-exists", description = "When the topic exists already, change nothing and exit 0.")
        boolean ifNotExists;
        @Option(names = "--config", paramLabel = "K=V", description = "A topic config override (repeatable).")
        Map<String, String> configs = new LinkedHashMap<>();

        @Override
        public Integer call() {
            List<List<Integer>> assignment = null;
            if (replicaAssignment != null) {
                if (partitions != null || replicationFactor != null) {
                    throw new CommandLine.ParameterException(spec.commandLine(),
                        "--replica-assignment sets the partitions and replicas; it cannot be used with --partitions or "
                            + "--replication-factor");
                }
                try {
                    assignment = ReplicaAssignment.parse(replicaAssignment);
                } catch (IllegalArgumentException e) {
                    throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
                }
            }
            // -1 means "the broker's default" on the wire, so a negative count must be refused here, not passed on
            if (partitions != null && partitions < 1) {
                throw new CliException("--partitions must be at least 1, got " + partitions);
            }
            if (replicationFactor != null && replicationFactor < 1) {
                throw new CliException("--replication-factor must be at least 1, got " + replicationFactor);
            }
            try (Admin admin = options.admin()) {
                NewTopic newTopic;
                if (assignment != null) {
                    Set<Integer> brokers = Futures.get(admin.describeBrokers()).stream().map(BrokerDescription::id)
                        .collect(Collectors.toSet());
                    Optional<String> refused = ReplicaAssignment.check(assignment, brokers);
                    if (refused.isPresent()) {
                        throw new CliException(refused.get());
                    }
                    newTopic = new NewTopic(topic, ReplicaAssignment.byPartition(assignment));
                } else {
                    newTopic = new NewTopic(topic, Optional.ofNullable(partitions), Optional.ofNullable(replicationFactor));
                }
                newTopic.configs(configs);
                boolean created = true;
                try {
                    Futures.get(admin.createTopics(List.of(newTopic)).all());
                } catch (CliException e) {
                    if (!ifNotExists || !(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                    created = false;
                }
                TopicDescription d = Futures.get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
                int rf = d.partitions().isEmpty() ? 0 : d.partitions().get(0).replicas().size();
                PrintWriter out = spec.commandLine().getOut();
                if (options.json()) {
                    ObjectNode doc = Json.object().put("ok", true).put("topic", topic).put("topicId", d.topicId())
                        .put("partitions", d.partitions().size()).put("replicationFactor", rf).put("created", created);
                    Json.print(out, doc);
                } else if (created) {
                    out.println("Created topic " + topic + " with " + d.partitions().size() + " partition(s), replication factor "
                        + rf + ".");
                    out.flush();
                } else {
                    out.println("Topic " + topic + " already exists (" + d.partitions().size()
                        + " partition(s), replication factor " + rf + "); nothing changed.");
                    out.flush();
                }
            }
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the topics.",
        footer = {"", "Example:", "  raftline topics list --exclude-internal --output json"})
    static final class ListTopics implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--exclude-internal", description = "Leave out __consumer_offsets.")
        boolean excludeInternal;

        @Override
        public Integer call() {
            try (Admin admin = options.admin()) {
                Collection<TopicListing> listings = Futures.get(admin.listTopics(
                    new ListTopicsOptions().listInternal(!excludeInternal)).listings());
                List<TopicListing> sorted = listings.stream().sorted(Comparator.comparing(TopicListing::name)).toList();
                PrintWriter out = spec.commandLine().getOut();
                if (options.json()) {
                    ObjectNode doc = Json.object();
                    ArrayNode topics = doc.putArray("topics");
                    for (TopicListing l : sorted) {
                        topics.addObject().put("topic", l.name()).put("internal", l.isInternal());
                    }
                    Json.print(out, doc);
                } else {
                    for (TopicListing l : sorted) {
                        out.println(l.name());
                    }
                    out.flush();
                }
            }
            return 0;
        }
    }

    @Command(name = "describe", mixinStandardHelpOptions = true,
        description = "Describes topics: per partition the leader, replicas (AR), ISR, OSR and offsets.",
        footer = {"", "Examples:", "  raftline topics describe --topic orders",
            "  raftline topics describe --under-replicated-partitions --output json"})
    static final class Describe implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--topic", paramLabel = "T", description = "One topic (default: all).")
        String topic;
        @Option(names = "--under-replicated-partitions", description = "Only partitions whose ISR is smaller than their replicas.")
        boolean underReplicated;
        @Option(names = "--unavailable-partitions", description = "Only partitions without a live leader.")
        boolean unavailable;
        @Option(names = "--exclude-internal", description = "Leave out __consumer_offsets.")
        boolean excludeInternal;

        @Override
        public Integer call() {
            try (Admin admin = options.admin()) {
                Collection<String> names;
                if (topic != null) {
                    names = List.of(topic);
                } else {
                    names = new TreeSet<>(Futures.get(admin.listTopics(new ListTopicsOptions().listInternal(!excludeInternal))
                        .names()));
                }
                Map<String, TopicDescription> descriptions = names.isEmpty() ? Map.of()
                    : Futures.get(admin.describeTopics(names).allTopicNames());
                Set<Integer> liveBrokers = Futures.get(admin.describeCluster().nodes()).stream()
                    .map(Node::id).collect(Collectors.toSet());
                Map<TopicPartition, ReplicaLogInfo> logs = Futures.get(admin.describeLogs(liveBrokers, OFFSETS_TIMEOUT)
                    .leaderLogs());
                List<TopicDescription> shown = new ArrayList<>();
                for (String name : names) {
                    TopicDescription d = descriptions.get(name);
                    if (d == null || (excludeInternal && d.internal())) {
                        continue;
                    }
                    List<TopicPartitionInfo> parts = d.partitions().stream().filter(this::matches).toList();
                    if (!parts.isEmpty() || (!underReplicated && !unavailable)) {
                        shown.add(new TopicDescription(d.name(), d.internal(), parts, d.topicId()));
                    }
                }
                print(shown, logs);
            }
            return 0;
        }

        private boolean matches(TopicPartitionInfo p) {
            if (underReplicated && p.isr().size() >= p.replicas().size()) {
                return false;
            }
            if (unavailable && p.leader() != null) {
                return false;
            }
            return true;
        }

        private void print(List<TopicDescription> topics, Map<TopicPartition, ReplicaLogInfo> logs) {
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                ObjectNode doc = Json.object();
                ArrayNode array = doc.putArray("topics");
                for (TopicDescription d : topics) {
                    ObjectNode t = array.addObject().put("topic", d.name()).put("topicId", d.topicId()).put("internal", d.internal());
                    ArrayNode parts = t.putArray("partitions");
                    for (TopicPartitionInfo p : d.partitions()) {
                        ObjectNode o = parts.addObject();
                        o.put("partition", p.partition());
                        o.put("leader", p.leader() == null ? -1 : p.leader().id());
                        o.put("leaderEpoch", p.leaderEpoch());
                        ids(o.putArray("replicas"), p.replicas());
                        ids(o.putArray("isr"), p.isr());
                        ids(o.putArray("osr"), osr(p));
                        ReplicaLogInfo log = p.leader() == null ? null : logs.get(new TopicPartition(d.name(), p.partition()));
                        if (log == null) {
                            o.putNull("highWatermark");
                            o.putNull("logStartOffset");
                            o.putNull("logEndOffset");
                        } else {
                            o.put("highWatermark", log.highWatermark());
                            o.put("logStartOffset", log.logStartOffset());
                            o.put("logEndOffset", log.logEndOffset());
                        }
                    }
                }
                Json.print(out, doc);
                return;
            }
            Table table = new Table("TOPIC", "PARTITION", "LEADER", "EPOCH", "REPLICAS", "ISR", "OSR", "HW", "LOG-START", "LOG-END");
            for (TopicDescription d : topics) {
                for (TopicPartitionInfo p : d.partitions()) {
                    ReplicaLogInfo log = p.leader() == null ? null : logs.get(new TopicPartition(d.name(), p.partition()));
                    table.row(d.name(), p.partition(), p.leader() == null ? "none" : p.leader().id(), p.leaderEpoch(),
                        join(p.replicas()), join(p.isr()), join(osr(p)),
                        log == null ? null : log.highWatermark(), log == null ? null : log.logStartOffset(),
                        log == null ? null : log.logEndOffset());
                }
            }
            table.print(out);
        }

        private static List<Node> osr(TopicPartitionInfo p) {
            Set<Integer> isr = p.isr().stream().map(Node::id).collect(Collectors.toSet());
            return p.replicas().stream().filter(n -> !isr.contains(n.id())).toList();
        }

        private static void ids(ArrayNode array, List<Node> nodes) {
            nodes.forEach(n -> array.add(n.id()));
        }

        /** Ids comma-separated; null (a "-" cell, so the column stays readable) for none, e.g. an empty OSR. */
        private static String join(List<Node> nodes) {
            return nodes.isEmpty() ? null : nodes.stream().map(n -> Integer.toString(n.id())).collect(Collectors.joining(","));
        }
    }

    @Command(name = "alter", mixinStandardHelpOptions = true,
        description = "Adds partitions (they only grow) or changes topic configs.",
        footer = {"", "Example:", "  raftline topics alter --topic orders --partitions 12 --config retention.ms=3600000"})
    static final class Alter implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--topic", required = true, paramLabel = "T")
        String topic;
        @Option(names = "--partitions", paramLabel = "P", description = "The new partition count (more than now).")
        Integer partitions;
        @Option(names = "--config", paramLabel = "K=V", description = "A topic config to set (repeatable).")
        Map<String, String> configs = new LinkedHashMap<>();

        @Override
        public Integer call() {
            if (partitions == null && configs.isEmpty()) {
                throw new CliException("nothing to alter: give --partitions or --config");
            }
            if (partitions != null && partitions < 1) {
                throw new CliException("--partitions must be at least 1, got " + partitions);
            }
            try (Admin admin = options.admin()) {
                if (partitions != null) {
                    Futures.get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(partitions))).all());
                }
                if (!configs.isEmpty()) {
                    List<AlterConfigOp> ops = new ArrayList<>();
                    configs.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
                    Futures.get(admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), ops))
                        .all());
                }
            }
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                ObjectNode doc = Json.object().put("ok", true).put("topic", topic);
                if (partitions != null) {
                    doc.put("partitions", partitions);
                }
                if (!configs.isEmpty()) {
                    ObjectNode c = doc.putObject("configs");
                    configs.forEach(c::put);
                }
                Json.print(out, doc);
            } else {
                out.println("Altered topic " + topic + ".");
                out.flush();
            }
            return 0;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Deletes a topic and its data on every broker.",
        footer = {"", "Examples:", "  raftline topics delete --topic orders",
            "  raftline topics delete --topic orders --if-exists"})
    static final class Delete implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--topic", required = true, paramLabel = "T")
        String topic;
        @Option(names = "--if-exists", description = "When the topic does not exist, change nothing and exit 0.")
        boolean ifExists;

        @Override
        public Integer call() {
            boolean deleted = true;
            try (Admin admin = options.admin()) {
                Futures.get(admin.deleteTopics(List.of(topic)).all());
            } catch (CliException e) {
                if (!ifExists || !(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                deleted = false;
            }
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                Json.print(out, Json.object().put("ok", true).put("topic", topic).put("deleted", deleted));
            } else {
                out.println(deleted ? "Deleted topic " + topic + "." : "Topic " + topic + " does not exist; nothing changed.");
                out.flush();
            }
            return 0;
        }
    }
}
