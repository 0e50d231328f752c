package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.ConsumerGroupDescription;
import io.raftline.client.admin.ConsumerGroupListing;
import io.raftline.client.admin.MemberDescription;
import io.raftline.client.admin.ReplicaLogInfo;
import io.raftline.client.admin.TopicDescription;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.consumer.OffsetAndTimestamp;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.errors.GroupIdNotFoundException;
import java.io.PrintWriter;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code raftline groups}: list, describe, delete consumer groups and reset their offsets. */
@Command(name = "groups", description = "Lists, describes and deletes consumer groups; resets their offsets.",
    mixinStandardHelpOptions = true,
    subcommands = {GroupsCommand.ListGroups.class, GroupsCommand.Describe.class, GroupsCommand.Delete.class,
        GroupsCommand.ResetOffsets.class},
    footer = {"", "Examples:", "  raftline groups list", "  raftline groups describe --group billing"})
public final class GroupsCommand {

    private static final Comparator<TopicPartition> BY_PARTITION =
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
        footer = {"", "Example:", "  raftline groups describe --group billing --output json"})
    static final class Describe implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--group", required = true, paramLabel = "G")
        String group;

        @Override
        public Integer call() {
            try (Admin admin = options.admin()) {
                ConsumerGroupDescription d = Futures.get(admin.describeConsumerGroups(List.of(group)).get(group));
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

    /** Exactly one target of reset-offsets. */
    static final class Target {
        @Option(names = "--to-earliest", required = true, description = "The partition's log start offset.")
        boolean earliest;
        @Option(names = "--to-latest", required = true, description = "The partition's high watermark.")
        boolean latest;
        @Option(names = "--to-offset", required = true, paramLabel = "N",
            description = "This offset (moved into the partition's range when outside it).")
        Long offset;
        @Option(names = "--to-datetime", required = true, paramLabel = "ISO8601",
            description = "The first offset at or after this time, e.g. 2026-01-31T12:00:00Z (latest when none).")
        String datetime;
    }

    /** Exactly one mode of reset-offsets. */
    static final class Mode {
        @Option(names = "--dry-run", required = true, description = "Print the new offsets; change nothing.")
        boolean dryRun;
        @Option(names = "--execute", required = true, description = "Commit the new offsets.")
        boolean execute;
    }

    @Command(name = "reset-offsets", mixinStandardHelpOptions = true,
        description = "Sets a group's committed offsets for a topic. The group must have no active members.",
        footer = {"", "Examples:", "  raftline groups reset-offsets --group billing --topic orders --to-earliest --dry-run",
            "  raftline groups reset-offsets --group billing --topic orders --to-datetime 2026-01-31T12:00:00Z --execute"})
    static final class ResetOffsets implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--group", required = true, paramLabel = "G")
        String group;
        @Option(names = "--topic", required = true, paramLabel = "T")
        String topic;
        @ArgGroup(exclusive = true, multiplicity = "1")
        Target target;
        @ArgGroup(exclusive = true, multiplicity = "1")
        Mode mode;

        @Override
        public Integer call() {
            Long timestamp = null;
            if (target.datetime != null) {
                try {
                    timestamp = OffsetDateTime.parse(target.datetime).toInstant().toEpochMilli();
                } catch (DateTimeParseException e) {
                    try {
                        timestamp = java.time.LocalDateTime.parse(target.datetime).toInstant(ZoneOffset.UTC).toEpochMilli();
                    } catch (DateTimeParseException e2) {
                        throw new CommandLine.ParameterException(spec.commandLine(),
                            "--to-datetime must be ISO 8601, e.g. 2026-01-31T12:00:00Z, got '" + target.datetime + "'");
                    }
                }
            }
            if (target.offset != null && target.offset < 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--to-offset must not be negative");
            }
            try (Admin admin = options.admin()) {
                TopicDescription topicDescription = Futures.get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
                if (topicDescription == null) {
                    throw new CliException("topic '" + topic + "' does not exist");
                }
                ConsumerGroupDescription d;
                try {
                    d = Futures.get(admin.describeConsumerGroups(List.of(group)).get(group));
                } catch (CliException e) {
                    if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                        throw e;
                    }
                    d = null; // an unknown group: reset-offsets creates its offsets
                }
                if (d != null && !d.members().isEmpty()) {
                    throw new CliException("group " + group + " has " + d.members().size()
                        + " active member(s); stop its consumers before resetting its offsets");
                }
                Map<TopicPartition, OffsetAndMetadata> before = d == null ? Map.of() : Futures.get(admin.listConsumerGroupOffsets(group));
                List<TopicPartition> partitions = topicDescription.partitions().stream()
                    .map(p -> new TopicPartition(topic, p.partition())).sorted(BY_PARTITION).toList();
                Map<TopicPartition, Long> targets = targets(partitions, timestamp);
                if (mode.execute) {
                    Map<TopicPartition, OffsetAndMetadata> commit = new LinkedHashMap<>();
                    targets.forEach((tp, o) -> commit.put(tp, new OffsetAndMetadata(o)));
                    Futures.get(admin.alterConsumerGroupOffsets(group, commit));
                }
                print(targets, before);
            }
            return 0;
        }

        private Map<TopicPartition, Long> targets(List<TopicPartition> partitions, Long timestamp) {
            Properties props = options.clientProperties();
            props.setProperty("client.id", "raftline-reset-offsets");
            props.remove("key.deserializer");
            props.remove("value.deserializer");
            try (RaftlineConsumer<byte[], byte[]> c = new RaftlineConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
                Map<TopicPartition, Long> earliest = c.beginningOffsets(partitions);
                Map<TopicPartition, Long> latest = c.endOffsets(partitions);
                Map<TopicPartition, OffsetAndTimestamp> byTime = Map.of();
                if (timestamp != null) {
                    Map<TopicPartition, Long> query = new LinkedHashMap<>();
                    for (TopicPartition tp : partitions) {
                        query.put(tp, timestamp);
                    }
                    byTime = c.offsetsForTimes(query);
                }
                Map<TopicPartition, Long> out = new LinkedHashMap<>();
                for (TopicPartition tp : partitions) {
                    long lo = earliest.get(tp);
                    long hi = latest.get(tp);
                    long to;
                    if (target.earliest) {
                        to = lo;
                    } else if (target.latest) {
                        to = hi;
                    } else if (target.offset != null) {
                        to = Math.max(lo, Math.min(hi, target.offset));
                    } else {
                        OffsetAndTimestamp found = byTime.get(tp);
                        to = found == null ? hi : found.offset();
                    }
                    out.put(tp, to);
                }
                return out;
            }
        }

        private void print(Map<TopicPartition, Long> targets, Map<TopicPartition, OffsetAndMetadata> before) {
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                ObjectNode doc = Json.object();
                if (mode.execute) {
                    doc.put("ok", true);
                }
                doc.put("group", group).put("dryRun", mode.dryRun);
                ArrayNode offsets = doc.putArray("offsets");
                targets.forEach((tp, o) -> {
                    ObjectNode n = offsets.addObject().put("topic", tp.topic()).put("partition", tp.partition());
                    OffsetAndMetadata b = before.get(tp);
                    if (b == null) {
                        n.putNull("previous");
                    } else {
                        n.put("previous", b.offset());
                    }
                    n.put("newOffset", o);
                });
                Json.print(out, doc);
                return;
            }
            Table table = new Table("TOPIC", "PARTITION", "PREVIOUS", "NEW-OFFSET");
            targets.forEach((tp, o) -> {
                OffsetAndMetadata b = before.get(tp);
                table.row(tp.topic(), tp.partition(), b == null ? null : b.offset(), o);
            });
            table.print(out);
            if (mode.dryRun) {
                out.println("(dry run: nothing changed; use --execute to commit these offsets)");
                out.flush();
            }
        }
    }
}
