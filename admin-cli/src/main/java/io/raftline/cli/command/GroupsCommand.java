package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.ConsumerGroupDescription;
import io.raftline.client.admin.ConsumerGroupListing;
import io.raftline.client.admin.MemberDescription;
import io.raftline.client.admin.ReplicaLogInfo;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.OffsetAndMetadata;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code raftline groups}: list, describe, delete consumer groups and reset their offsets. */
@Command(name = "groups", description = "Lists, describes and deletes consumer groups; resets their offsets.",
    mixinStandardHelpOptions = true,
    subcommands = {GroupsCommand.ListGroups.class, GroupsCommand.Describe.class, GroupsCommand.Delete.class,
        ResetOffsetsCommand.class},
    footer = {"", "Examples:", "  raftline groups list", "  raftline groups describe --group billing"})
public final class GroupsCommand {

    static final Comparator<TopicPartition> BY_PARTITION =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the consumer groups.",
        footer = {"", "Example:", "  raftline groups list --output json"})
    static final class ListGroups implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            try (Admin admin = options.admin()) {
                List<ConsumerGroupListing> groups = Futures.get(admin.listConsumerGroups());
                PrintWriter out = spec.commandLine().getOut();
                if (options.json()) {
                    ObjectNode doc = Json.object();
                    ArrayNode array = doc.putArray("groups");
                    groups.forEach(g -> array.addObject().put("group", g.groupId()).put("state", g.state())
                        .put("coordinator", g.coordinator()));
                    Json.print(out, doc);
                } else {
                    Table table = new Table("GROUP", "STATE", "COORDINATOR");
                    groups.forEach(g -> table.row(g.groupId(), g.state(), g.coordinator()));
                    table.print(out);
                }
            }
            return 0;
        }
    }

    @Command(name = "describe", mixinStandardHelpOptions = true,
        description = "Describes a group: state, protocol, coordinator, members and their partitions, and per partition "
            + "the committed offset, the log end offset (high watermark) and the lag.",
        footer = {"", "Examples:", "  raftline groups describe --group billing --output json",
            "  raftline groups describe --group billing --members", "  raftline groups describe --group billing --state"})
    static final class Describe implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--group", required = true, paramLabel = "G")
        String group;
        @Option(names = "--members", description = "Only the members: id, host, client id, partition count, assignment.")
        boolean membersOnly;
        @Option(names = "--state", description = "Only the group: coordinator, assignor, state, member count.")
        boolean stateOnly;

        @Override
        public Integer call() {
            if (membersOnly && stateOnly) {
                throw new CommandLine.ParameterException(spec.commandLine(), "give --members or --state, not both");
            }
            try (Admin admin = options.admin()) {
                ConsumerGroupDescription d = Futures.get(admin.describeConsumerGroups(List.of(group)).get(group));
                if (membersOnly) {
                    printMembers(d);
                    return 0;
                }
                if (stateOnly) {
                    printState(d);
                    return 0;
                }
                Map<TopicPartition, OffsetAndMetadata> committed = Futures.get(admin.listConsumerGroupOffsets(group));
                // Every partition the group has an offset for or a member owns, in order.
                Map<TopicPartition, Long> rows = new TreeMap<>(BY_PARTITION);
                committed.forEach((tp, o) -> rows.put(tp, o.offset()));
                d.members().forEach(m -> m.assignment().forEach(tp -> rows.putIfAbsent(tp, null)));
                Map<TopicPartition, Long> ends = highWatermarks(admin, rows.keySet());
                print(d, rows, ends);
            }
            return 0;
        }

        private void print(ConsumerGroupDescription d, Map<TopicPartition, Long> rows, Map<TopicPartition, Long> ends) {
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                ObjectNode doc = Json.object().put("group", d.groupId()).put("state", d.state())
                    .put("coordinator", d.coordinator().id()).put("protocol", d.protocol());
                ArrayNode members = doc.putArray("members");
                for (MemberDescription m : d.members()) {
                    ObjectNode o = members.addObject().put("memberId", m.memberId()).put("clientId", m.clientId())
                        .put("host", m.host());
                    ArrayNode a = o.putArray("assignment");
                    m.assignment().forEach(tp -> a.addObject().put("topic", tp.topic()).put("partition", tp.partition()));
                }
                ArrayNode offsets = doc.putArray("offsets");
                rows.forEach((tp, c) -> {
                    ObjectNode o = offsets.addObject().put("topic", tp.topic()).put("partition", tp.partition());
                    Long end = ends.get(tp);
                    putOrNull(o, "committed", c);
                    putOrNull(o, "logEndOffset", end);
                    putOrNull(o, "lag", c == null || end == null ? null : Math.max(0, end - c));
                });
                Json.print(out, doc);
                return;
            }
            out.println("Group " + d.groupId() + " is " + d.state() + " (protocol " + (d.protocol().isEmpty() ? "-" : d.protocol())
                + ", coordinator " + d.coordinator().id() + ", " + d.members().size() + " member(s))");
            Map<TopicPartition, MemberDescription> owner = new LinkedHashMap<>();
            d.members().forEach(m -> m.assignment().forEach(tp -> owner.put(tp, m)));
            Table table = new Table("TOPIC", "PARTITION", "COMMITTED", "LOG-END", "LAG", "MEMBER", "CLIENT-ID", "HOST");
            rows.forEach((tp, c) -> {
                Long end = ends.get(tp);
                MemberDescription m = owner.get(tp);
                table.row(tp.topic(), tp.partition(), c, end, c == null || end == null ? null : Math.max(0, end - c),
                    m == null ? null : m.memberId(), m == null ? null : m.clientId(), m == null ? null : m.host());
            });
            table.print(out);
        }

        /** As kafka-consumer-groups --describe --members: one line per member. */
        private void printMembers(ConsumerGroupDescription d) {
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                ObjectNode doc = Json.object().put("group", d.groupId()).put("state", d.state());
                ArrayNode members = doc.putArray("members");
                for (MemberDescription m : d.members()) {
                    ObjectNode o = members.addObject().put("memberId", m.memberId()).put("clientId", m.clientId())
                        .put("host", m.host()).put("partitions", m.assignment().size());
                    ArrayNode a = o.putArray("assignment");
                    m.assignment().forEach(tp -> a.addObject().put("topic", tp.topic()).put("partition", tp.partition()));
                }
                Json.print(out, doc);
                return;
            }
            Table table = new Table("GROUP", "MEMBER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "ASSIGNMENT");
            for (MemberDescription m : d.members()) {
                table.row(d.groupId(), m.memberId(), m.host(), m.clientId(), m.assignment().size(), assignment(m.assignment()));
            }
            table.print(out);
        }

        /** As kafka-consumer-groups --describe --state: the group on one line. */
        private void printState(ConsumerGroupDescription d) {
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                Json.print(out, Json.object().put("group", d.groupId()).put("state", d.state())
                    .put("coordinator", d.coordinator().id()).put("protocol", d.protocol())
                    .put("memberCount", d.members().size()));
                return;
            }
            Table table = new Table("GROUP", "COORDINATOR", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS");
            table.row(d.groupId(), d.coordinator().id(), d.protocol().isEmpty() ? null : d.protocol(), d.state(),
                d.members().size());
            table.print(out);
        }

        /** Kafka's form, {@code orders(0,1),refunds(2)}; null (a "-" cell) for none. */
        private static String assignment(List<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return null;
            }
            Map<String, List<Integer>> byTopic = new TreeMap<>();
            partitions.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
            return byTopic.entrySet().stream().map(e -> e.getKey() + "(" + e.getValue().stream().sorted().map(String::valueOf)
                .collect(Collectors.joining(",")) + ")").collect(Collectors.joining(","));
        }

        private static void putOrNull(ObjectNode o, String field, Long value) {
            if (value == null) {
                o.putNull(field);
            } else {
                o.put(field, value);
            }
        }
    }

    /** The high watermarks of these partitions, from their leaders (absent when a leader does not answer in 2 s). */
    static Map<TopicPartition, Long> highWatermarks(Admin admin, Set<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return Map.of();
        }
        Set<Integer> brokers = Futures.get(admin.describeCluster().nodes()).stream().map(Node::id).collect(Collectors.toSet());
        Map<TopicPartition, ReplicaLogInfo> logs = Futures.get(admin.describeLogs(brokers, TopicsCommand.OFFSETS_TIMEOUT).leaderLogs());
        Map<TopicPartition, Long> out = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            ReplicaLogInfo log = logs.get(tp);
            if (log != null) {
                out.put(tp, log.highWatermark());
            }
        }
        return out;
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
        description = "Deletes a group that has no members, with its committed offsets.",
        footer = {"", "Example:", "  raftline groups delete --group billing"})
    static final class Delete implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--group", required = true, paramLabel = "G")
        String group;

        @Override
        public Integer call() {
            try (Admin admin = options.admin()) {
                Futures.get(admin.deleteConsumerGroups(List.of(group)).get(group));
                PrintWriter out = spec.commandLine().getOut();
                if (options.json()) {
                    Json.print(out, Json.object().put("ok", true).put("group", group));
                } else {
                    out.println("Deleted group " + group + ".");
                    out.flush();
                }
            }
            return 0;
        }
    }
}
