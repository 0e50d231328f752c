package io.raftline.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.AlterConfigOp;
import io.raftline.client.admin.Config;
import io.raftline.client.admin.ConfigEntry;
import io.raftline.client.admin.ConfigResource;
import io.raftline.client.admin.NewPartitionReassignment;
import io.raftline.client.admin.PartitionReassignment;
import io.raftline.client.admin.TopicDescription;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.common.SystemTime;
import io.raftline.common.Time;
import io.raftline.common.config.ReplicationThrottleConfig;
import io.raftline.common.config.TopicConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code raftline reassign}: moves partition replicas between brokers, as kafka-reassign-partitions. {@code --generate}
 * prints a plan that moves as few replicas as it can ({@link ReassignmentPlanner}); {@code --plan FILE} executes
 * (printing the rollback plan first, optionally throttled), verifies, waits for or cancels one.
 *
 * <p>Throttles: {@code --execute --throttle B} sets {@code leader/follower.replication.throttled.rate} to B on every
 * broker that holds or gains a replica of a moving partition and lists those replicas in the topics'
 * {@code leader/follower.replication.throttled.replicas} ({@link ReassignmentThrottles}), before the move starts.
 * The CLI removes them, as Kafka's {@code --verify} does: {@code --verify} or {@code --wait}, once it sees every
 * partition of the plan done, deletes the throttled replica lists of the plan's topics and the rates of every broker;
 * so does {@code --cancel}.
 */
@Command(name = "reassign", mixinStandardHelpOptions = true, description = "Moves partition replicas between brokers.",
    footer = {"", "--execute prints the current assignment of the plan's partitions (a plan that undoes the move) on "
        + "stdout before it starts the move. With --throttle BYTES_PER_SEC, replication of the moving replicas is "
        + "limited to that rate (leader.replication.throttled.rate and follower.replication.throttled.rate on the "
        + "brokers, leader/follower.replication.throttled.replicas on the topics); --verify or --wait removes these "
        + "throttles once every partition of the plan is done, and --cancel removes them too. --verify exits 1 while "
        + "a partition is still moving (or is neither moving nor on the plan's replicas). --wait blocks until the "
        + "plan is done, with a progress line on "
        + "stderr every 5 s.",
        "", "Examples:", "  raftline reassign --generate --topics orders --brokers 1,2,3,4 > plan.json",
        "  raftline reassign --plan plan.json --execute > rollback.json",
        "  raftline reassign --plan plan.json --execute --throttle 10485760",
        "  raftline reassign --plan plan.json --verify", "  raftline reassign --plan plan.json --wait",
        "  raftline reassign --plan plan.json --execute --wait",
        "  raftline reassign --plan plan.json --cancel"})
public final class ReassignCommand implements Callable<Integer> {

    static final long PROGRESS_INTERVAL_MS = 5000;
    /** How often --wait looks at the reassignment between progress lines. */
    static final long POLL_INTERVAL_MS = 500;

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Mode mode;

    /** The clock of --wait. */
    Time time = SystemTime.INSTANCE;

    /** The progress line's period; an option only so that tests need not wait 5 s. */
    @Option(names = "--progress-interval-ms", hidden = true, defaultValue = "" + PROGRESS_INTERVAL_MS)
    long progressIntervalMs;

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
        @ArgGroup(exclusive = true, multiplicity = "0..1")
        Action action;
        @Option(names = "--wait", description = "Block until every partition of the plan is done (after --execute, or "
            + "alone), with a progress line on stderr every 5 s; then remove the throttles.")
        boolean await;
        @Option(names = "--throttle", paramLabel = "BYTES_PER_SEC", description = "With --execute: limit the "
            + "replication of the moving replicas to this many bytes per second (per broker, in and out).")
        Long throttle;
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
        WithPlan withPlan = mode.withPlan;
        if (withPlan != null) {
            boolean execute = withPlan.action != null && withPlan.action.execute;
            boolean cancel = withPlan.action != null && withPlan.action.cancel;
            if (withPlan.action == null && !withPlan.await) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                    "--plan needs one of --execute, --verify, --cancel, --wait");
            }
            if (cancel && withPlan.await) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--wait does not go with --cancel");
            }
            if (withPlan.throttle != null && !execute) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--throttle goes with --execute");
            }
            if (withPlan.throttle != null && withPlan.throttle < 1) {
                throw new CliException("--throttle must be at least 1 byte per second, not " + withPlan.throttle);
            }
        }
        try (Admin admin = options.admin()) {
            if (mode.generate != null) {
                return generate(admin);
            }
            Map<TopicPartition, List<Integer>> plan = readPlan(withPlan.plan);
            if (withPlan.action != null && withPlan.action.cancel) {
                return cancel(admin, plan);
            }
            ObjectNode executed = Json.object();
            if (withPlan.action != null && withPlan.action.execute) {
                executed = execute(admin, plan, withPlan.throttle);
                if (!withPlan.await) {
                    if (options.json()) {
                        Json.print(spec.commandLine().getOut(), executed);
                    }
                    return 0;
                }
                // one JSON document: what --execute set up goes into the final status
                executed.remove(List.of("ok", "partitions"));
            }
            if (withPlan.await) {
                return await(admin, plan, executed);
            }
            return verify(admin, plan);
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

    /**
     * Checks the plan against the cluster (every topic, partition and broker exists), prints the rollback plan, sets
     * the throttles, then starts the move. Refused input changes nothing.
     */
    private ObjectNode execute(Admin admin, Map<TopicPartition, List<Integer>> plan, Long throttle) {
        Map<TopicPartition, List<Integer>> current = currentAssignment(admin, plan);
        Set<Integer> registered = new TreeSet<>();
        Futures.get(admin.describeBrokers()).forEach(b -> registered.add(b.id()));
        plan.forEach((tp, replicas) -> replicas.stream().filter(b -> !registered.contains(b)).findFirst().ifPresent(b -> {
            throw new CliException("the plan puts " + tp + " on broker " + b + ", which is not registered (brokers: "
                + join(List.copyOf(registered)) + ")");
        }));
        ObjectNode rollback = planJson(current);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!options.json()) {
            err.println("Current assignment of the plan's partitions (a plan that undoes this move), on stdout:");
            err.flush();
            Json.print(out, rollback);
        }
        ReassignmentThrottles throttles = ReassignmentThrottles.of(current, plan);
        if (throttle != null) {
            setThrottles(admin, throttles, throttle);
        }
        Map<TopicPartition, Optional<NewPartitionReassignment>> request = new LinkedHashMap<>();
        plan.forEach((tp, replicas) -> request.put(tp, Optional.of(new NewPartitionReassignment(replicas))));
        Futures.get(admin.alterPartitionReassignments(request).all());
        ObjectNode doc = Json.object().put("ok", true).put("partitions", plan.size());
        doc.set("rollback", rollback);
        if (throttle != null) {
            doc.put("throttle", throttle);
            ints(doc.putArray("throttledBrokers"), List.copyOf(throttles.brokers()));
        } else {
            doc.putNull("throttle");
        }
        if (!options.json()) {
            err.println("Started the reassignment of " + plan.size() + " partition(s)"
                + (throttle == null ? "" : ", throttled to " + throttle + " B/s on broker(s) "
                    + join(List.copyOf(throttles.brokers())))
                + "; follow it with --verify" + (throttle == null ? "." : ", which removes the throttles once it is done."));
            err.flush();
        }
        return doc;
    }

    /** The replicas now of every partition of the plan; a missing topic or partition is one error. */
    private static Map<TopicPartition, List<Integer>> currentAssignment(Admin admin, Map<TopicPartition, List<Integer>> plan) {
        List<String> topicNames = plan.keySet().stream().map(TopicPartition::topic).distinct().toList();
        Map<String, TopicDescription> topics = Futures.get(admin.describeTopics(topicNames).allTopicNames());
        Map<TopicPartition, List<Integer>> current = new LinkedHashMap<>();
        for (TopicPartition tp : plan.keySet()) {
            TopicPartitionInfo info = topics.get(tp.topic()).partitions().stream()
                .filter(p -> p.partition() == tp.partition()).findFirst()
                .orElseThrow(() -> new CliException("partition " + tp + " does not exist"));
            current.put(tp, ids(info.replicas()));
        }
        return current;
    }

    private static void setThrottles(Admin admin, ReassignmentThrottles throttles, long rate) {
        Map<ConfigResource, Collection<AlterConfigOp>> ops = new LinkedHashMap<>();
        for (int broker : throttles.brokers()) {
            ops.put(new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(broker)), List.of(
                set(ReplicationThrottleConfig.LEADER_RATE, Long.toString(rate)),
                set(ReplicationThrottleConfig.FOLLOWER_RATE, Long.toString(rate))));
        }
        Set<String> topics = new TreeSet<>(throttles.leaders().keySet());
        for (String topic : topics) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = Futures.get(admin.describeConfigs(List.of(resource)).all()).get(resource);
            ops.put(resource, List.of(
                set(TopicConfig.LEADER_REPLICATION_THROTTLED_REPLICAS, ReassignmentThrottles.merge(
                    value(config, TopicConfig.LEADER_REPLICATION_THROTTLED_REPLICAS), throttles.leaders().get(topic))),
                set(TopicConfig.FOLLOWER_REPLICATION_THROTTLED_REPLICAS, ReassignmentThrottles.merge(
                    value(config, TopicConfig.FOLLOWER_REPLICATION_THROTTLED_REPLICAS), throttles.followers().get(topic)))));
        }
        Futures.get(admin.incrementalAlterConfigs(ops).all());
    }

    /**
     * Deletes what {@code --throttle} set: the throttled replica lists of the plan's topics and the throttle rates of
     * every registered broker that has one. Returns how many configs it deleted.
     */
    private static int removeThrottles(Admin admin, Set<String> topics) {
        List<ConfigResource> resources = new ArrayList<>();
        topics.forEach(t -> resources.add(new ConfigResource(ConfigResource.Type.TOPIC, t)));
        Futures.get(admin.describeBrokers()).forEach(b ->
            resources.add(new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(b.id()))));
        Map<ConfigResource, Config> configs = Futures.get(admin.describeConfigs(resources).all());
        Map<ConfigResource, Collection<AlterConfigOp>> ops = new LinkedHashMap<>();
        int deleted = 0;
        for (ConfigResource r : resources) {
            List<String> keys = r.type() == ConfigResource.Type.TOPIC
                ? List.of(TopicConfig.LEADER_REPLICATION_THROTTLED_REPLICAS, TopicConfig.FOLLOWER_REPLICATION_THROTTLED_REPLICAS)
                : List.of(ReplicationThrottleConfig.LEADER_RATE, ReplicationThrottleConfig.FOLLOWER_RATE);
            List<AlterConfigOp> delete = new ArrayList<>();
            for (String key : keys) {
                ConfigEntry e = configs.get(r) == null ? null : configs.get(r).get(key);
                boolean dynamic = e != null && ("topic".equals(e.source()) || "dynamic-broker".equals(e.source()));
                if (dynamic && e.value() != null && !e.value().isEmpty()) {
                    delete.add(new AlterConfigOp(new ConfigEntry(key, null), AlterConfigOp.OpType.DELETE));
                }
            }
            if (!delete.isEmpty()) {
                ops.put(r, delete);
                deleted += delete.size();
            }
        }
        if (!ops.isEmpty()) {
            Futures.get(admin.incrementalAlterConfigs(ops).all());
        }
        return deleted;
    }

    private static AlterConfigOp set(String key, String value) {
        return new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET);
    }

    private static String value(Config config, String key) {
        ConfigEntry e = config == null ? null : config.get(key);
        return e == null || !"topic".equals(e.source()) ? null : e.value();
    }

    private int cancel(Admin admin, Map<TopicPartition, List<Integer>> plan) {
        Map<TopicPartition, Optional<NewPartitionReassignment>> request = new LinkedHashMap<>();
        plan.keySet().forEach(tp -> request.put(tp, Optional.empty()));
        Futures.get(admin.alterPartitionReassignments(request).all());
        int removed = removeThrottles(admin, plan.keySet().stream().map(TopicPartition::topic)
            .collect(Collectors.toCollection(TreeSet::new)));
        report("Cancelled the reassignment of " + plan.size() + " partition(s)."
                + (removed > 0 ? " Removed the replication throttles." : ""),
            Json.object().put("ok", true).put("partitions", plan.size()).put("throttlesRemoved", removed));
        return 0;
    }

    /** Where the plan stands: the document {@code --verify} prints, its table, and the counts. */
    private record Status(ObjectNode doc, Table table, int done, int moving, int mismatched, int total) {
        boolean complete() {
            return moving == 0 && mismatched == 0;
        }

        String summary() {
            return done + " of " + total + " partition(s) done; " + moving + " still moving"
                + (mismatched == 0 ? "" : "; " + mismatched + " not moving but not on the plan's replicas") + ".";
        }
    }

    /**
     * Says, per partition of the plan, where it stands: {@code done} (replicas are the target), {@code moving} (a
     * reassignment is under way: the target, the current replicas and ISR, the new replicas still catching up to the
     * ISR and the old ones to drop) or {@code mismatched} (nothing moving, yet the replicas differ from the plan).
     */
    private static Status status(Admin admin, Map<TopicPartition, List<Integer>> plan) {
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
        Status status = new Status(doc, table, done.size(), moving.size(), mismatched.size(), plan.size());
        doc.put("complete", status.complete());
        return status;
    }

    /** {@code --verify}: prints where the plan stands; when it is done, removes the throttles. */
    private int verify(Admin admin, Map<TopicPartition, List<Integer>> plan) {
        return report(admin, plan, status(admin, plan), Json.object());
    }

    /**
     * Prints a status (the JSON, with {@code extra}'s fields, or the table and summary); exit 0 once complete
     * (throttles removed), else 1.
     */
    private int report(Admin admin, Map<TopicPartition, List<Integer>> plan, Status status, ObjectNode extra) {
        int removed = 0;
        if (status.complete()) {
            removed = removeThrottles(admin, plan.keySet().stream().map(TopicPartition::topic)
                .collect(Collectors.toCollection(TreeSet::new)));
            status.doc().put("throttlesRemoved", removed);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (options.json()) {
            status.doc().setAll(extra);
            Json.print(out, status.doc());
        } else {
            status.table().print(out);
            out.println(status.summary() + (removed > 0 ? " Removed the replication throttles." : ""));
            out.flush();
        }
        if (!status.complete()) {
            throw new CliException(status.moving() > 0
                ? status.moving() + " of " + status.total() + " partition(s) still moving"
                : status.mismatched() + " partition(s) neither moving nor on the plan's replicas");
        }
        return 0;
    }

    /**
     * {@code --wait}: looks every {@link #POLL_INTERVAL_MS} until nothing is moving, with a progress line on stderr
     * every {@code --progress-interval-ms}; then reports as {@code --verify} does (a partition left mismatched, e.g.
     * cancelled, ends it with exit 1).
     */
    private int await(Admin admin, Map<TopicPartition, List<Integer>> plan, ObjectNode extra) {
        PrintWriter err = spec.commandLine().getErr();
        long intervalNs = TimeUnit.MILLISECONDS.toNanos(Math.max(1, progressIntervalMs));
        long nextProgressNs = time.nanoseconds() + intervalNs;
        while (true) {
            Status status = status(admin, plan);
            if (status.moving() == 0) {
                return report(admin, plan, status, extra);
            }
            long now = time.nanoseconds();
            if (now - nextProgressNs >= 0) {
                err.println("reassign: " + status.summary());
                err.flush();
                nextProgressNs = now + intervalNs;
            }
            try {
                time.sleep(Math.min(POLL_INTERVAL_MS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextProgressNs - now))));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliException("interrupted");
            }
        }
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
