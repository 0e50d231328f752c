package io.raftline.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import io.raftline.metadata.image.MetadataImage;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.TopicPartition;
import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.acl.AclFilter;
import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.controller.AlterPartitionReassignmentsRequest;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreateAclsRequest;
import io.raftline.protocol.controller.CreatePartitionsRequest;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.protocol.controller.DeleteAclsRequest;
import io.raftline.protocol.controller.DeleteTopicsRequest;
import io.raftline.protocol.controller.DeleteTopicsResponse;
import io.raftline.protocol.controller.ElectLeadersRequest;
import io.raftline.protocol.metadata.IntList;
import io.raftline.protocol.metadata.MetadataRecord;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * The admin writes a broker forwards to the controller (create and delete topics, create partitions, alter configs,
 * create and delete ACLs, elect leaders, reassignments), with the fields a hostile or broken client chose: negative
 * and huge counts and ids, unknown enum numbers, empty, oversized and unicode names, duplicates, replica lists naming
 * no broker. Decided by a real {@link Controller} on a 3-broker cluster holding topic {@code t} (2 partitions, RF 2):
 * no decision throws (the controller's server would answer UNKNOWN), every error is one code other than UNKNOWN
 * with a message, and what a refused request or a refused entry names is left as it was (no topic created by an
 * invalid create, no config or ACL written by a refused request, nothing at all for validate_only).
 */
class HostileAdminRequestsTest {

    private static final long SEED = 20261205L;

    // ---------------------------------------------------------------------------------------------------------
    // Generators

    private static Gen<Integer> ints() {
        return Generate.pick(List.of(-1, 0, 1, 2, 3, 4, 100, -2, Integer.MIN_VALUE, Integer.MAX_VALUE, 1 << 20, 10_001))
            .mix(integers().all(), 30);
    }

    private static Gen<String> names() {
        return Generate.pick(List.of("", ".", "..", "t", "t", "new-topic", "x".repeat(249), "x".repeat(250), "a/b", "a b",
                "__consumer_offsets", "\u00e9t\u00e9", "\ud800"))
            .mix(strings().allPossible().ofLengthBetween(0, 30), 30)
            .mix(strings().basicLatinAlphabet().ofLengthBetween(200, 300), 10);
    }

    /** Config keys and values: real ones with good and bad values, unknown keys, odd text. */
    private static Gen<Map.Entry<String, String>> configs() {
        Gen<String> keys = Generate.pick(List.of("retention.ms", "cleanup.policy", "min.insync.replicas", "segment.bytes",
            "max.message.bytes", "compression.type", "producer_byte_rate", "no.such.key", "", "x".repeat(300)));
        Gen<String> values = Generate.pick(List.of("1000", "-1", "-5", "0", "compact", "delete,compact", "bogus", "",
                "99999999999999999999", "1e3", " 7 ", "lz4", "NaN"))
            .mix(strings().allPossible().ofLengthBetween(0, 20), 20);
        return keys.zip(values, Map::entry);
    }

    private static <T> Gen<List<T>> some(Gen<T> element) {
        return lists().of(element).ofSizeBetween(0, 6);
    }

    private static Gen<List<Integer>> replicaLists() {
        return lists().of(ints().mix(integers().between(1, 3), 60)).ofSizeBetween(0, 5);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Properties

    @Test
    void createTopics() {
        Gen<CreatableTopic.Assignment> assignment = ints().zip(replicaLists(), (p, rs) ->
            CreatableTopic.Assignment.newBuilder().setPartition(p).addAllReplicas(rs).build());
        Gen<CreatableTopic> topic = names().zip(ints(), ints(), some(configs()), lists().of(assignment).ofSizeBetween(0, 3),
            (name, partitions, rf, configs, assignments) -> {
                CreatableTopic.Builder b = CreatableTopic.newBuilder().setName(name).setNumPartitions(partitions)
                    .setReplicationFactor(rf).addAllAssignments(assignments);
                configs.forEach(e -> b.putConfigs(e.getKey(), e.getValue()));
                return b.build();
            });
        Gen<CreateTopicsRequest> requests = some(topic).zip(booleans().all(), (ts, validateOnly) ->
            CreateTopicsRequest.newBuilder().addAllTopics(ts).setValidateOnly(validateOnly).build());
        qt().withFixedSeed(SEED).withExamples(400).forAll(requests).checkAssert(request -> {
            ControllerTestContext ctx = cluster();
            Set<String> before = topicNames(ctx.image);
            CreateTopicsResponse response = decide(ctx, c -> c.createTopics(ctx.image, request), request.getValidateOnly());
            oneError(response.getError());
            Set<String> created = new HashSet<>();
            for (CreateTopicsResponse.Result r : response.getTopicsList()) {
                oneError(r.getError());
                if (r.getError().getCode() == ErrorCode.NONE) {
                    created.add(r.getName());
                }
            }
            Set<String> after = topicNames(ctx.image);
            after.removeAll(before);
            assertThat(created).as("topics answered as created").containsAll(after);
            for (String name : after) {
                TopicImage t = ctx.topic(name);
                assertThat(t.partitions()).as("partitions of %s", name).isNotEmpty();
                t.partitions().values().forEach(p -> assertThat(p.replicas()).as("replicas of %s", name)
                    .isNotEmpty().doesNotHaveDuplicates().allMatch(id -> ctx.image.broker(id).isPresent()));
            }
        });
    }

    @Test
    void deleteTopics() {
        qt().withFixedSeed(SEED).withExamples(300).forAll(some(names())).checkAssert(names -> {
            ControllerTestContext ctx = cluster();
            DeleteTopicsResponse response = decide(ctx, c -> c.deleteTopics(ctx.image,
                DeleteTopicsRequest.newBuilder().addAllNames(names).build()), false);
            oneError(response.getError());
            response.getTopicsList().forEach(r -> oneError(r.getError()));
            boolean deleted = response.getTopicsList().stream()
                .anyMatch(r -> r.getName().equals("t") && r.getError().getCode() == ErrorCode.NONE);
            assertThat(ctx.image.topic("t").isPresent()).as("t still there").isEqualTo(!deleted);
        });
    }

    @Test
    void createPartitions() {
        Gen<CreatePartitionsRequest.Topic> topic = names().zip(ints(), (name, count) ->
            CreatePartitionsRequest.Topic.newBuilder().setName(name).setCount(count).build());
        qt().withFixedSeed(SEED).withExamples(300).forAll(some(topic), booleans().all()).checkAssert((topics, validateOnly) -> {
            ControllerTestContext ctx = cluster();
            var response = decide(ctx, c -> c.createPartitions(ctx.image, CreatePartitionsRequest.newBuilder()
                .addAllTopics(topics).setValidateOnly(validateOnly).build()), validateOnly);
            oneError(response.getError());
            response.getTopicsList().forEach(r -> oneError(r.getError()));
            boolean grown = response.getTopicsList().stream()
                .anyMatch(r -> r.getName().equals("t") && r.getError().getCode() == ErrorCode.NONE);
            if (!grown || validateOnly) {
                assertThat(ctx.topic("t").partitions()).as("partitions of t").hasSize(2);
            }
        });
    }

    /** Resource types include numbers no enum has; a refused request writes no config at all. */
    @Test
    void alterConfigs() {
        Gen<Integer> types = Generate.pick(List.of(0, 1, 1, 2, 3, 4, 5, 99, -1));
        Gen<String> resources = names().mix(Generate.pick(List.of("", "1", "4", "007", "03", "\u0663", "99999999999",
            "alice", "<default>")), 30);
        Gen<AlterConfigsRequest.Op> op = types.zip(resources, configs(), booleans().all(), (type, resource, config, delete) -> {
                AlterConfigsRequest.Op.Builder b = AlterConfigsRequest.Op.newBuilder().setResourceTypeValue(type)
                    .setResourceName(resource).setName(config.getKey());
                if (!delete) {
                    b.setValue(config.getValue());
                }
                return b.build();
            });
        qt().withFixedSeed(SEED).withExamples(400).forAll(some(op), booleans().all()).checkAssert((ops, validateOnly) -> {
            ControllerTestContext ctx = cluster();
            var result = decide(ctx, c -> c.alterConfigs(ctx.image, AlterConfigsRequest.newBuilder().addAllOps(ops)
                .setValidateOnly(validateOnly).build()), validateOnly);
            oneError(result.getError());
            if (result.getError().getCode() != ErrorCode.NONE) {
                assertThat(ctx.image).as("the image after a refused alter").isSameAs(baseline);
            }
            for (AlterConfigsRequest.Op o : ops) {
                if (result.getError().getCode() == ErrorCode.NONE && o.getResourceTypeValue() == 2
                    && !o.getResourceName().isEmpty()) {
                    // stored for a broker by its id as that broker looks it up ("3", not "003" or "\u0663")
                    assertThat(ctx.image.broker(Integer.parseInt(o.getResourceName())).map(b -> String.valueOf(b.id())))
                        .as("the broker named by %s", o.getResourceName()).contains(o.getResourceName());
                }
            }
        });
    }

    /** Bindings and filters with every enum number (unknown ones too) and odd principals, hosts and names. */
    @Test
    void createAndDeleteAcls() {
        Gen<Integer> enums = Generate.pick(List.of(0, 1, 2, 3, 4, 5, 7, 11, 12, 99, -1));
        Gen<String> principals = Generate.pick(List.of("User:alice", "User:*", "alice", "User:", "", "Group:x", ":"))
            .mix(strings().allPossible().ofLengthBetween(0, 20), 20);
        Gen<String> hosts = Generate.pick(List.of("*", "127.0.0.1", "", "::1", "not a host"));
        Gen<AclBinding> binding = principals.zip(hosts, names(), enums, enums.zip(enums, enums, (a, b, c) -> new int[] {a, b, c}),
            (principal, host, name, type, rest) -> AclBinding.newBuilder().setPrincipal(principal).setHost(host)
                .setResourceTypeValue(type).setResourceName(name).setPatternTypeValue(rest[0]).setOperationValue(rest[1])
                .setPermissionValue(rest[2]).build());
        qt().withFixedSeed(SEED).withExamples(400).forAll(some(binding)).checkAssert(bindings -> {
            ControllerTestContext ctx = cluster();
            var created = decide(ctx, c -> c.createAcls(ctx.image, CreateAclsRequest.newBuilder().addAllBindings(bindings)
                .build()), false);
            oneError(created.getError());
            if (created.getError().getCode() != ErrorCode.NONE) {
                assertThat(ctx.image.acls()).as("ACLs after a refused create").isEmpty();
            }
            AclFilter filter = AclFilter.newBuilder().setPrincipal(bindings.isEmpty() ? "" : bindings.get(0).getPrincipal())
                .setResourceTypeValue(bindings.isEmpty() ? 99 : bindings.get(0).getResourceTypeValue())
                .setOperationValue(bindings.isEmpty() ? -1 : bindings.get(0).getOperationValue()).build();
            var deleted = decide(ctx, c -> c.deleteAcls(ctx.image, DeleteAclsRequest.newBuilder().addFilters(filter)
                .addFilters(AclFilter.getDefaultInstance()).build()), false);
            oneError(deleted.getError());
        });
    }

    @Test
    void electLeadersAndReassignments() {
        Gen<TopicPartition> tp = names().zip(ints().mix(integers().between(0, 1), 50), (t, p) ->
            TopicPartition.newBuilder().setTopic(t).setPartition(p).build());
        Gen<ElectLeadersRequest> elect = some(tp).zip(Generate.pick(List.of(0, 1, 2, 99, -1)), (tps, type) ->
            ElectLeadersRequest.newBuilder().setTypeValue(type).addAllPartitions(tps).build());
        qt().withFixedSeed(SEED).withExamples(300).forAll(elect).checkAssert(request -> {
            ControllerTestContext ctx = cluster();
            var response = decide(ctx, c -> c.electLeaders(ctx.image, request), false);
            oneError(response.getError());
            response.getPartitionsList().forEach(r -> oneError(r.getError()));
        });
        Gen<AlterPartitionReassignmentsRequest.Reassignment> move = tp.zip(replicaLists(), booleans().all(),
            (p, replicas, cancel) -> {
                var b = AlterPartitionReassignmentsRequest.Reassignment.newBuilder().setPartition(p);
                if (!cancel) {
                    b.setReplicas(IntList.newBuilder().addAllValues(replicas));
                }
                return b.build();
            });
        qt().withFixedSeed(SEED).withExamples(300).forAll(some(move)).checkAssert(moves -> {
            ControllerTestContext ctx = cluster();
            Map<Integer, List<Integer>> before = replicas(ctx);
            var response = decide(ctx, c -> c.alterPartitionReassignments(ctx.image,
                AlterPartitionReassignmentsRequest.newBuilder().addAllReassignments(moves).build()), false);
            oneError(response.getError());
            response.getPartitionsList().forEach(r -> oneError(r.getError()));
            boolean accepted = response.getError().getCode() == ErrorCode.NONE && response.getPartitionsList().stream()
                .anyMatch(r -> r.getPartition().getTopic().equals("t") && r.getError().getCode() == ErrorCode.NONE);
            if (!accepted) {
                assertThat(replicas(ctx)).as("replicas of t after refused reassignments").isEqualTo(before);
            }
        });
    }

    // ---------------------------------------------------------------------------------------------------------
    // Harness

    private static ControllerTestContext shared;
    private static MetadataImage baseline;
    private static long baselineIndex;

    /**
     * The controller of 3 brokers and topic t with 2 partitions of RF 2, its image back at that state for each
     * example (admin decisions read nothing but the image).
     */
    private static ControllerTestContext cluster() {
        if (shared == null) {
            shared = new ControllerTestContext(ControllerConfig.builder().autoLeaderRebalanceEnable(false).build(), SEED);
            shared.startBrokers(3);
            assertThat(shared.createTopic("t", 2, 2, Map.of()).getError().getCode()).isEqualTo(ErrorCode.NONE);
            baseline = shared.image;
            baselineIndex = shared.nextIndex;
        }
        shared.image = baseline;
        shared.nextIndex = baselineIndex;
        return shared;
    }

    /**
     * Decides on the context's image and applies the records, as the controller's server does; an exception thrown
     * here is what that server answers UNKNOWN. {@code validateOnly}: nothing may be written.
     */
    private static <T> T decide(ControllerTestContext ctx, Function<Controller, ControllerResult<T>> decision,
                                boolean validateOnly) {
        ControllerResult<T> result;
        try {
            result = decision.apply(ctx.controller);
        } catch (RuntimeException e) {
            throw new AssertionError("the decision threw (answered UNKNOWN by the controller's server)", e);
        }
        List<MetadataRecord> records = result.records();
        if (validateOnly) {
            assertThat(records).as("records of a validate-only request").isEmpty();
        }
        try {
            return ctx.run(result);
        } catch (RuntimeException e) {
            throw new AssertionError("the records or the answer of the decision failed: " + records, e);
        }
    }

    private static void oneError(Error error) {
        if (error.getCode() == ErrorCode.NONE) {
            return;
        }
        assertThat(error.getCode()).as("an error code for bad input: %s", error.getMessage())
            .isNotIn(ErrorCode.UNKNOWN, ErrorCode.UNRECOGNIZED);
        assertThat(error.getMessage()).as("the message of %s", error.getCode()).isNotBlank();
    }

    private static Set<String> topicNames(MetadataImage image) {
        return new HashSet<>(image.topicIdsByName().keySet());
    }

    private static Map<Integer, List<Integer>> replicas(ControllerTestContext ctx) {
        Map<Integer, List<Integer>> out = new TreeMap<>();
        ctx.topic("t").partitions().forEach((p, r) -> out.put(p, List.copyOf(r.replicas())));
        return out;
    }
}
