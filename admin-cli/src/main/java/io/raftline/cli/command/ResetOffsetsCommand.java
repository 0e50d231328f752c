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
import io.raftline.client.admin.TopicDescription;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.consumer.OffsetAndTimestamp;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.errors.GroupIdNotFoundException;
import io.raftline.common.SystemTime;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code raftline groups reset-offsets}, as kafka-consumer-groups {@code --reset-offsets}: which groups
 * ({@code --group} or {@code --all-groups}), which partitions ({@code --topic T[:P,P]}... or {@code --all-topics},
 * or the partitions of a {@code --from-file} plan), where to ({@link OffsetReset}), then a dry run or the commit. A
 * group with active members is left alone: with {@code --group} that is the error; with {@code --all-groups} the
 * others are reset and the command then exits 1 naming the groups skipped.
 */
@Command(name = "reset-offsets", mixinStandardHelpOptions = true,
    description = "Sets consumer groups' committed offsets. A group must have no active members.",
    footer = {"", "Examples:", "  raftline groups reset-offsets --group billing --topic orders --to-earliest --dry-run",
        "  raftline groups reset-offsets --group billing --topic orders:0,1 --topic refunds --shift-by -10 --execute",
        "  raftline groups reset-offsets --group billing --all-topics --by-duration PT1H --dry-run --export > plan.csv",
        "  raftline groups reset-offsets --group billing --from-file plan.csv --execute",
        "  raftline groups reset-offsets --all-groups --topic orders --to-datetime 2026-01-31T12:00:00Z --execute"})
final class ResetOffsetsCommand implements Callable<Integer> {

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = "--group", paramLabel = "G", description = "The group (or --all-groups).")
    String group;
    @Option(names = "--all-groups", description = "Every consumer group of the cluster.")
    boolean allGroups;
    @Option(names = "--topic", paramLabel = "T[:P[,P...]]",
        description = "A topic, all its partitions or those listed (repeatable; or --all-topics).")
    List<String> topics = new ArrayList<>();
    @Option(names = "--all-topics", description = "Every partition the group has a committed offset for.")
    boolean allTopics;
    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;
    @ArgGroup(exclusive = true, multiplicity = "1")
    Mode mode;
    @Option(names = "--export", description = "Print the plan as CSV (topic,partition,offset; with --all-groups the group "
        + "first), as --from-file reads it, instead of the table.")
    boolean export;

    /** Exactly one target. */
    static final class Target {
        @Option(names = "--to-earliest", required = true, description = "The partition's log start offset.")
        boolean earliest;
        @Option(names = "--to-latest", required = true, description = "The partition's high watermark.")
        boolean latest;
        @Option(names = "--to-current", required = true,
            description = "The committed offset as it is (the high watermark where there is none).")
        boolean current;
        @Option(names = "--to-offset", required = true, paramLabel = "N",
            description = "This offset (moved into the partition's range when outside it).")
        Long offset;
        @Option(names = "--shift-by", required = true, paramLabel = "N",
            description = "The committed offset plus N (negative goes back), moved into the partition's range.")
        Long shiftBy;
        @Option(names = "--to-datetime", required = true, paramLabel = "ISO8601",
            description = "The first offset at or after this time, e.g. 2026-01-31T12:00:00Z (latest when none).")
        String datetime;
        @Option(names = "--by-duration", required = true, paramLabel = "PnDTnHnMnS",
            description = "The first offset at or after this long ago, e.g. PT30M or P1DT2H (latest when none).")
        String duration;
        @Option(names = "--from-file", required = true, paramLabel = "FILE",
            description = "The offsets of a CSV plan (topic,partition,offset or group,topic,partition,offset), as "
                + "--export prints it; moved into each partition's range.")
        Path file;
    }

    /** Exactly one mode. */
    static final class Mode {
        @Option(names = "--dry-run", required = true, description = "Print the new offsets; change nothing.")
        boolean dryRun;
        @Option(names = "--execute", required = true, description = "Commit the new offsets.")
        boolean execute;
    }

    @Override
    public Integer call() {
        if ((group == null) == !allGroups) {
            throw usage("give exactly one of --group and --all-groups");
        }
        if (target.file != null) {
            if (!topics.isEmpty() || allTopics) {
                throw usage("--from-file names its own partitions; it cannot be used with --topic or --all-topics");
            }
        } else if (topics.isEmpty() == !allTopics) {
            throw usage("give --topic (repeatable) or --all-topics");
        }
        if (export && options.json()) {
            throw usage("--export prints CSV; it cannot be used with --output json");
        }
        List<TopicScope> scopes = new ArrayList<>();
        for (String t : topics) {
            try {
                scopes.add(TopicScope.parse(t));
            } catch (IllegalArgumentException e) {
                throw usage(e.getMessage());
            }
        }
        OffsetReset.Spec rule = rule();
        List<ResetPlanCsv.Row> fileRows = target.file == null ? null : readPlan(target.file);
        try (Admin admin = options.admin()) {
            List<String> groupIds = allGroups
                ? Futures.get(admin.listConsumerGroups()).stream().map(ConsumerGroupListing::groupId).toList()
                : List.of(group);
            Map<String, Map<TopicPartition, OffsetAndMetadata>> committed = new LinkedHashMap<>();
            List<String> active = new ArrayList<>();
            for (String g : groupIds) {
                ConsumerGroupDescription d = describe(admin, g);
                if (d != null && !d.members().isEmpty()) {
                    if (!allGroups) {
                        throw new CliException("group " + g + " has " + d.members().size()
                            + " active member(s); stop its consumers before resetting its offsets");
                    }
                    active.add(g);
                    continue;
                }
                committed.put(g, d == null ? Map.of() : Futures.get(admin.listConsumerGroupOffsets(g)));
            }
            Map<String, Set<TopicPartition>> chosen = choose(admin, committed, scopes, fileRows);
            Map<String, Map<TopicPartition, Long>> plan = plan(rule, chosen, committed, fileRows);
            if (mode.execute) {
                plan.forEach((g, offsets) -> {
                    if (!offsets.isEmpty()) {
                        Map<TopicPartition, OffsetAndMetadata> commit = new LinkedHashMap<>();
                        offsets.forEach((tp, o) -> commit.put(tp, new OffsetAndMetadata(o)));
                        Futures.get(admin.alterConsumerGroupOffsets(g, commit));
                    }
                });
            }
            print(plan, committed, active);
            if (!active.isEmpty()) {
                throw new CliException("group(s) " + String.join(", ", active)
                    + " have active members; their offsets were not reset");
            }
        }
        return 0;
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** The target as a rule; a time or duration that does not parse is a usage error. */
    private OffsetReset.Spec rule() {
        if (target.earliest) {
            return OffsetReset.Spec.of(OffsetReset.Kind.EARLIEST);
        } else if (target.latest) {
            return OffsetReset.Spec.of(OffsetReset.Kind.LATEST);
        } else if (target.current) {
            return OffsetReset.Spec.of(OffsetReset.Kind.CURRENT);
        } else if (target.offset != null) {
            if (target.offset < 0) {
                throw usage("--to-offset must not be negative");
            }
            return new OffsetReset.Spec(OffsetReset.Kind.OFFSET, target.offset);
        } else if (target.shiftBy != null) {
            return new OffsetReset.Spec(OffsetReset.Kind.SHIFT_BY, target.shiftBy);
        } else if (target.datetime != null) {
            return new OffsetReset.Spec(OffsetReset.Kind.TIMESTAMP, parseDatetime(target.datetime));
        } else if (target.duration != null) {
            try {
                return new OffsetReset.Spec(OffsetReset.Kind.TIMESTAMP,
                    OffsetReset.timestampBefore(SystemTime.INSTANCE.milliseconds(), Duration.parse(target.duration)));
            } catch (DateTimeParseException e) {
                throw usage("--by-duration must be an ISO 8601 duration PnDTnHnMnS, e.g. PT30M or P1DT2H, got '"
                    + target.duration + "'");
            } catch (IllegalArgumentException e) {
                throw usage(e.getMessage());
            }
        }
        return OffsetReset.Spec.of(OffsetReset.Kind.FILE);
    }

    private long parseDatetime(String text) {
        try {
            return OffsetDateTime.parse(text).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            try {
                return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC).toEpochMilli();
            } catch (DateTimeParseException e2) {
                throw usage("--to-datetime must be ISO 8601, e.g. 2026-01-31T12:00:00Z, got '" + text + "'");
            }
        }
    }

    private static List<ResetPlanCsv.Row> readPlan(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CliException("cannot read --from-file " + file + ": " + e.getMessage());
        }
        try {
            return ResetPlanCsv.parse(text);
        } catch (IllegalArgumentException e) {
            throw new CliException("--from-file " + file + ": " + e.getMessage());
        }
    }

    /** The group's description, or null for a group no coordinator knows (reset-offsets then creates its offsets). */
    private static ConsumerGroupDescription describe(Admin admin, String g) {
        try {
            return Futures.get(admin.describeConsumerGroups(List.of(g)).get(g));
        } catch (CliException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return null;
            }
            throw e;
        }
    }

    /** Per group, the partitions to reset; every one is checked to exist. */
    private Map<String, Set<TopicPartition>> choose(Admin admin, Map<String, Map<TopicPartition, OffsetAndMetadata>> committed,
                                                    List<TopicScope> scopes, List<ResetPlanCsv.Row> fileRows) {
        Set<String> topicNames = new TreeSet<>();
        scopes.forEach(s -> topicNames.add(s.topic()));
        committed.forEach((g, offsets) -> {
            if (allTopics) {
                offsets.keySet().forEach(tp -> topicNames.add(tp.topic()));
            }
        });
        if (fileRows != null) {
            fileRows.forEach(r -> topicNames.add(r.partition().topic()));
        }
        Map<String, TopicDescription> described = topicNames.isEmpty() ? Map.of()
            : Futures.get(admin.describeTopics(topicNames).allTopicNames());
        Set<TopicPartition> scoped = new TreeSet<>(GroupsCommand.BY_PARTITION);
        for (TopicScope s : scopes) {
            int count = partitionCount(described, s.topic());
            if (s.partitions().isEmpty()) {
                for (int p = 0; p < count; p++) {
                    scoped.add(new TopicPartition(s.topic(), p));
                }
            }
            s.partitions().forEach(p -> scoped.add(new TopicPartition(s.topic(), p)));
        }
        Map<String, Set<TopicPartition>> out = new LinkedHashMap<>();
        for (String g : committed.keySet()) {
            Set<TopicPartition> set = new TreeSet<>(GroupsCommand.BY_PARTITION);
            if (fileRows != null) {
                fileRows.stream().filter(r -> r.group() == null || r.group().equals(g)).forEach(r -> set.add(r.partition()));
            } else if (allTopics) {
                set.addAll(committed.get(g).keySet());
            } else {
                set.addAll(scoped);
            }
            for (TopicPartition tp : set) {
                int count = partitionCount(described, tp.topic());
                if (tp.partition() >= count) {
                    throw new CliException("topic '" + tp.topic() + "' has " + count + " partition(s); there is no partition "
                        + tp.partition());
                }
            }
            if (set.isEmpty() && !allGroups) {
                throw new CliException(fileRows != null ? "--from-file lists no partition of group " + g
                    : "group " + g + " has no committed offsets, so --all-topics selects no partition");
            }
            out.put(g, set);
        }
        return out;
    }

    private static int partitionCount(Map<String, TopicDescription> described, String topic) {
        TopicDescription d = described.get(topic);
        if (d == null) {
            throw new CliException("topic '" + topic + "' does not exist");
        }
        return d.partitions().size();
    }

    /** Per group, each partition's new offset ({@link OffsetReset}), from one look at the partitions' offsets. */
    private Map<String, Map<TopicPartition, Long>> plan(OffsetReset.Spec rule, Map<String, Set<TopicPartition>> chosen,
                                                        Map<String, Map<TopicPartition, OffsetAndMetadata>> committed,
                                                        List<ResetPlanCsv.Row> fileRows) {
        Set<TopicPartition> all = new LinkedHashSet<>();
        chosen.values().forEach(all::addAll);
        Map<String, Map<TopicPartition, Long>> plan = new LinkedHashMap<>();
        if (all.isEmpty()) {
            chosen.keySet().forEach(g -> plan.put(g, Map.of()));
            return plan;
        }
        Properties props = options.clientProperties();
        props.setProperty("client.id", "raftline-reset-offsets");
        props.remove("key.deserializer");
        props.remove("value.deserializer");
        try (RaftlineConsumer<byte[], byte[]> c = new RaftlineConsumer<>(props, new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = List.copyOf(all);
            Map<TopicPartition, Long> earliest = c.beginningOffsets(partitions);
            Map<TopicPartition, Long> latest = c.endOffsets(partitions);
            Map<TopicPartition, OffsetAndTimestamp> byTime = Map.of();
            if (rule.kind() == OffsetReset.Kind.TIMESTAMP) {
                Map<TopicPartition, Long> query = new LinkedHashMap<>();
                partitions.forEach(tp -> query.put(tp, rule.value()));
                byTime = c.offsetsForTimes(query);
            }
            for (Map.Entry<String, Set<TopicPartition>> e : chosen.entrySet()) {
                String g = e.getKey();
                Map<TopicPartition, Long> offsets = new TreeMap<>(GroupsCommand.BY_PARTITION);
                for (TopicPartition tp : e.getValue()) {
                    OffsetAndMetadata now = committed.get(g).get(tp);
                    OffsetAndTimestamp found = byTime.get(tp);
                    OffsetReset.Partition p = new OffsetReset.Partition(earliest.get(tp), latest.get(tp),
                        now == null ? null : now.offset(), found == null ? null : found.offset(), fromFile(fileRows, g, tp));
                    try {
                        offsets.put(tp, OffsetReset.newOffset(rule, p));
                    } catch (IllegalArgumentException why) {
                        throw new CliException("cannot reset " + tp.topic() + "-" + tp.partition() + " for group " + g + ": "
                            + why.getMessage());
                    }
                }
                plan.put(g, offsets);
            }
        }
        return plan;
    }

    /** The file's offset for this group's partition (a group's own line wins over a three-column one). */
    private static Long fromFile(List<ResetPlanCsv.Row> rows, String g, TopicPartition tp) {
        if (rows == null) {
            return null;
        }
        Long any = null;
        for (ResetPlanCsv.Row r : rows) {
            if (r.partition().equals(tp)) {
                if (g.equals(r.group())) {
                    return r.offset();
                }
                if (r.group() == null) {
                    any = r.offset();
                }
            }
        }
        return any;
    }

    private void print(Map<String, Map<TopicPartition, Long>> plan, Map<String, Map<TopicPartition, OffsetAndMetadata>> before,
                       List<String> skipped) {
        PrintWriter out = spec.commandLine().getOut();
        if (export) {
            out.print(ResetPlanCsv.format(plan, allGroups));
            out.flush();
            return;
        }
        if (options.json()) {
            ObjectNode doc = Json.object();
            if (mode.execute) {
                doc.put("ok", skipped.isEmpty());
            }
            if (allGroups) {
                doc.put("dryRun", mode.dryRun);
                ArrayNode groups = doc.putArray("groups");
                plan.forEach((g, offsets) -> offsets(groups.addObject().put("group", g).putArray("offsets"), offsets,
                    before.get(g)));
                ArrayNode s = doc.putArray("skipped");
                skipped.forEach(s::add);
            } else {
                doc.put("group", group).put("dryRun", mode.dryRun);
                offsets(doc.putArray("offsets"), plan.get(group), before.get(group));
            }
            Json.print(out, doc);
            return;
        }
        Table table = allGroups ? new Table("GROUP", "TOPIC", "PARTITION", "PREVIOUS", "NEW-OFFSET")
            : new Table("TOPIC", "PARTITION", "PREVIOUS", "NEW-OFFSET");
        plan.forEach((g, offsets) -> offsets.forEach((tp, o) -> {
            OffsetAndMetadata b = before.get(g).get(tp);
            Long previous = b == null ? null : b.offset();
            if (allGroups) {
                table.row(g, tp.topic(), tp.partition(), previous, o);
            } else {
                table.row(tp.topic(), tp.partition(), previous, o);
            }
        }));
        table.print(out);
        if (mode.dryRun) {
            out.println("(dry run: nothing changed; use --execute to commit these offsets)");
            out.flush();
        }
    }

    private static void offsets(ArrayNode array, Map<TopicPartition, Long> offsets, Map<TopicPartition, OffsetAndMetadata> before) {
        offsets.forEach((tp, o) -> {
            ObjectNode n = array.addObject().put("topic", tp.topic()).put("partition", tp.partition());
            OffsetAndMetadata b = before.get(tp);
            if (b == null) {
                n.putNull("previous");
            } else {
                n.put("previous", b.offset());
            }
            n.put("newOffset", o);
        });
    }
}
