package io.raftline.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewPartitionReassignment;
import io.raftline.client.admin.PartitionReassignment;
import io.raftline.client.admin.TopicDescription;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code raftline reassign}: moves partition replicas between brokers, as kafka-reassign-partitions. {@code --generate}
 * prints an even plan; {@code --plan FILE} executes, verifies or cancels one.
 */
@Command(name = "reassign", mixinStandardHelpOptions = true, description = "Moves partition replicas between brokers.",
    footer = {"", "Examples:", "  raftline reassign --generate --topics orders --brokers 1,2,3,4 > plan.json",
        "  raftline reassign --plan plan.json --execute", "  raftline reassign --plan plan.json --verify",
        "  raftline reassign --plan plan.json --cancel"})
public final class ReassignCommand implements Callable<Integer> {

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Mode mode;

    static final class Mode {
        @ArgGroup(exclusive = false)
        Generate generate;
        @ArgGroup(exclusive = false)
        WithPlan withPlan;
    }

    static final class Generate {
        @Option(names = "--generate", required = true)
        boolean generate;
        @Option(names = "--topics", required = true, split = ",", paramLabel = "T[,T...]")
        List<String> topics;
        @Option(names = "--brokers", required = true, split = ",", paramLabel = "ID[,ID...]")
        List<Integer> brokers;
    }

    static final class WithPlan {
        @Option(names = "--plan", required = true, paramLabel = "FILE")
        Path plan;
        @ArgGroup(exclusive = true, multiplicity = "1")
        Action action;
    }

    static final class Action {
        @Option(names = "--execute", required = true)
        boolean execute;
        @Option(names = "--verify", required = true)
        boolean verify;
        @Option(names = "--cancel", required = true)
        boolean cancel;
    }

    @Override
    public Integer call() {
        try (Admin admin = options.admin()) {
            if (mode.generate != null) {
                return generate(admin);
            }
            Map<TopicPartition, List<Integer>> plan = readPlan(mode.withPlan.plan);
            if (mode.withPlan.action.execute) {
                return execute(admin, plan);
            }
            if (mode.withPlan.action.verify) {
                return verify(admin, plan);
            }
            return cancel(admin, plan);
        }
    }

    private int generate(Admin admin) {
        Map<String, TopicDescription> topics = Futures.get(admin.describeTopics(mode.generate.topics).allTopicNames());
        Map<Integer, String> racks = new HashMap<>();
        Futures.get(admin.describeBrokers()).forEach(b -> racks.put(b.id(), b.rack()));
        Map<TopicPartition, List<Integer>> current = new LinkedHashMap<>();
        for (String name : mode.generate.topics) {
            for (TopicPartitionInfo p : topics.get(name).partitions()) {
                current.put(new TopicPartition(name, p.partition()), ids(p.replicas()));
            }
        }
        Map<TopicPartition, List<Integer>> plan;
        try {
            plan = ReassignmentPlanner.plan(current, mode.generate.brokers, racks);
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        }
        Json.print(spec.commandLine().getOut(), planJson(plan));
        return 0;
    }

    /** A plan file's document: {@code {"version":1,"partitions":[{"topic":…,"partition":…,"replicas":[…]}]}}. */
    static ObjectNode planJson(Map<TopicPartition, List<Integer>> plan) {
        ObjectNode doc = Json.object().put("version", 1);
        ArrayNode parts = doc.putArray("partitions");
        plan.forEach((tp, replicas) -> ints(parts.addObject().put("topic", tp.topic()).put("partition", tp.partition())
            .putArray("replicas"), replicas));
        return doc;
    }

    private int execute(Admin admin, Map<TopicPartition, List<Integer>> plan) {
        Map<TopicPartition, Optional<NewPartitionReassignment>> request = new LinkedHashMap<>();
        plan.forEach((tp, replicas) -> request.put(tp, Optional.of(new NewPartitionReassignment(replicas))));
        Futures.get(admin.alterPartitionReassignments(request).all());
        report("Started the reassignment of " + plan.size() + " partition(s); follow it with --verify.",
            Json.object().put("ok", true).put("partitions", plan.size()));
        return 0;
    }

    private int cancel(Admin admin, Map<TopicPartition, List<Integer>> plan) {
        Map<TopicPartition, Optional<NewPartitionReassignment>> request = new LinkedHashMap<>();
        plan.keySet().forEach(tp -> request.put(tp, Optional.empty()));
        Futures.get(admin.alterPartitionReassignments(request).all());
        report("Cancelled the reassignment of " + plan.size() + " partition(s).",
            Json.object().put("ok", true).put("partitions", plan.size()));
        return 0;
    }

    /**
     * Says, per partition of the plan, where it stands: {@code done} (replicas are the target), {@code moving} (a
     * reassignment is under way: the target, the current replicas and ISR, the new replicas still catching up to the
     * ISR and the old ones to drop) or {@code mismatched} (nothing moving, yet the replicas differ from the plan).
     */
    private int verify(Admin admin, Map<TopicPartition, List<Integer>> plan) {
        Map<TopicPartition, PartitionReassignment> ongoing = Futures.get(admin.listPartitionReassignments().reassignments());
        List<String> topicNames = plan.keySet().stream().map(TopicPartition::topic).distinct().toList();
        Map<String, TopicDescription> topics = Futures.get(admin.describeTopics(topicNames).allTopicNames());
        ObjectNode doc = Json.object();
        ArrayNode moving = doc.putArray("moving");
        ArrayNode done = doc.putArray("done");
        ArrayNode mismatched = doc.putArray("mismatched");
        Table table = new Table("TOPIC", "PARTITION", "STATE", "TARGET", "REPLICAS", "ISR", "CATCHING-UP", "REMOVING");
        for (Map.Entry<TopicPartition, List<Integer>> e : new TreeMap<>(plan).entrySet()) {
            TopicPartition tp = e.getKey();
            List<Integer> target = e.getValue();
            TopicPartitionInfo info = topics.get(tp.topic()).partitions().stream()
                .filter(p -> p.partition() == tp.partition()).findFirst()
                .orElseThrow(() -> new CliException("partition " + tp + " does not exist"));
            List<Integer> current = ids(info.replicas());
            List<Integer> isr = ids(info.isr());
            ObjectNode o = Json.object().put("topic", tp.topic()).put("partition", tp.partition());
            ints(o.putArray("targetReplicas"), target);
            ints(o.putArray("replicas"), current);
            ints(o.putArray("isr"), isr);
            PartitionReassignment r = ongoing.get(tp);
            if (r != null) {
                List<Integer> catchingUp = r.addingReplicas().stream().filter(id -> !isr.contains(id)).toList();
                ints(o.putArray("catchingUp"), catchingUp);
                ints(o.putArray("adding"), r.addingReplicas());
                ints(o.putArray("removing"), r.removingReplicas());
                moving.add(o);
                table.row(tp.topic(), tp.partition(), "moving", join(target), join(current), join(isr), join(catchingUp),
                    join(r.removingReplicas()));
            } else if (current.equals(target)) {
                done.add(o);
                table.row(tp.topic(), tp.partition(), "done", join(target), join(current), join(isr), null, null);
            } else {
                mismatched.add(o);
                table.row(tp.topic(), tp.partition(), "mismatched", join(target), join(current), join(isr), null, null);
            }
        }
        boolean complete = moving.isEmpty() && mismatched.isEmpty();
        doc.put("complete", complete);
        PrintWriter out = spec.commandLine().getOut();
        if (options.json()) {
            Json.print(out, doc);
        } else {
            table.print(out);
            out.println(done.size() + " of " + plan.size() + " partition(s) done; " + moving.size() + " still moving"
                + (mismatched.isEmpty() ? "" : "; " + mismatched.size() + " not moving but not on the plan's replicas") + ".");
            out.flush();
        }
        return 0;
    }

    private static List<Integer> ids(List<Node> nodes) {
        return nodes.stream().map(Node::id).toList();
    }

    private static void ints(ArrayNode array, List<Integer> values) {
        values.forEach(array::add);
    }

    /** Ids comma-separated; null (a "-" cell) for none. */
    private static String join(List<Integer> values) {
        return values.isEmpty() ? null : values.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private void report(String text, ObjectNode json) {
        PrintWriter out = spec.commandLine().getOut();
        if (options.json()) {
            Json.print(out, json);
        } else {
            out.println(text);
            out.flush();
        }
    }

    static Map<TopicPartition, List<Integer>> readPlan(Path file) {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new CliException("cannot read the plan " + file + ": " + e.getMessage());
        }
        if (root == null || root.path("version").asInt(-1) != 1 || !root.path("partitions").isArray()) {
            throw new CliException("the plan " + file + " is not {\"version\":1,\"partitions\":[...]}");
        }
        Map<TopicPartition, List<Integer>> plan = new LinkedHashMap<>();
        for (JsonNode p : root.get("partitions")) {
            if (!p.path("topic").isTextual() || !p.path("partition").isInt() || !p.path("replicas").isArray()) {
                throw new CliException("the plan " + file + " has an entry without topic, partition and replicas: " + p);
            }
            List<Integer> replicas = new ArrayList<>();
            p.get("replicas").forEach(r -> replicas.add(r.asInt()));
            if (replicas.isEmpty() || replicas.stream().distinct().count() != replicas.size()) {
                throw new CliException("the plan " + file + " gives " + p.get("topic").asText() + "-" + p.get("partition").asInt()
                    + " an empty or repeated replica list " + replicas);
            }
            plan.put(new TopicPartition(p.get("topic").asText(), p.get("partition").asInt()), replicas);
        }
        return plan;
    }
}
