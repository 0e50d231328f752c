package io.raftline.metadata.controller;

import io.raftline.common.Uuid;
import io.raftline.common.config.ClientQuotaConfig;
import io.raftline.common.config.ReplicationThrottleConfig;
import io.raftline.common.config.TopicConfig;
import io.raftline.metadata.image.ConfigResource;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.controller.AlterConfigsResponse;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreatePartitionsRequest;
import io.raftline.protocol.controller.CreatePartitionsResponse;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.protocol.controller.DeleteTopicsRequest;
import io.raftline.protocol.controller.DeleteTopicsResponse;
import io.raftline.protocol.metadata.ConfigRecord;
import io.raftline.protocol.metadata.ConfigResourceType;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.PartitionRecord;
import io.raftline.protocol.metadata.RemoveTopicRecord;
import io.raftline.protocol.metadata.TopicRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * Topic decisions: create (Kafka's name rules, partition and replication checks, known configs only), delete,
 * add partitions, alter configs. Each topic of a request succeeds or fails on its own, as in Kafka; a refused
 * topic gets one specific error code and writes nothing. Alter configs is all-or-nothing.
 */
final class TopicControl {

    private final ControllerConfig config;
    private final RandomGenerator random;

    TopicControl(ControllerConfig config, RandomGenerator random) {
        this.config = config;
        this.random = random;
    }

    ControllerResult<CreateTopicsResponse> createTopics(MetadataImage image, CreateTopicsRequest request) {
        List<MetadataRecord> records = new ArrayList<>();
        CreateTopicsResponse.Builder resp = CreateTopicsResponse.newBuilder().setError(Errors.NONE);
        // the names created earlier in this request, by collision key (the image answers for the rest)
        Map<String, String> names = new HashMap<>();
        ReplicaPlacer placer = new ReplicaPlacer(image);
        int budget = MAX_NEW_PARTITIONS;
        for (CreatableTopic topic : request.getTopicsList()) {
            CreateTopicsResponse.Result.Builder r = CreateTopicsResponse.Result.newBuilder().setName(topic.getName());
            List<MetadataRecord> topicRecords = new ArrayList<>();
            Error err = createOne(image, topic, names, placer, topicRecords, r, budget);
            r.setError(err);
            if (err.getCode() == ErrorCode.NONE) {
                budget -= r.getNumPartitions();
                names.put(MetadataImage.collisionKey(topic.getName()), topic.getName());
                if (!request.getValidateOnly()) {
                    records.addAll(topicRecords);
                }
            }
            resp.addTopics(r);
        }
        return ControllerResult.of(records, resp.build());
    }

    /**
     * The most partitions one request may add, over all its topics: each is a record of the one entry that holds the
     * change, so a create of a billion partitions must be refused, not placed (Kafka bounds the records of one
     * controller operation to 10,000 alike).
     */
    static final int MAX_NEW_PARTITIONS = 10_000;

    private static Error tooManyPartitions(int asked, int budget) {
        return Errors.of(ErrorCode.INVALID_PARTITIONS, "one request may add at most " + MAX_NEW_PARTITIONS
            + " partitions; this one asks for " + asked + (budget < MAX_NEW_PARTITIONS ? " more, with room for " + budget
            + " left" : ""));
    }

    private Error createOne(MetadataImage image, CreatableTopic topic, Map<String, String> names, ReplicaPlacer placer,
                            List<MetadataRecord> out, CreateTopicsResponse.Result.Builder r, int budget) {
        String name = topic.getName();
        boolean internal = name.equals(TopicNames.CONSUMER_OFFSETS);
        var bad = TopicNames.validate(name);
        if (bad.isPresent()) {
            return Errors.of(ErrorCode.INVALID_TOPIC, bad.get());
        }
        String earlier = names.get(MetadataImage.collisionKey(name));
        if (image.topicIdsByName().containsKey(name) || name.equals(earlier)) {
            return Errors.of(ErrorCode.TOPIC_ALREADY_EXISTS, "topic '" + name + "' already exists");
        }
        var collision = image.collidingTopic(name).or(() -> Optional.ofNullable(earlier));
        if (collision.isPresent()) {
            return Errors.of(ErrorCode.INVALID_TOPIC, TopicNames.collision(name, collision.get()));
        }
        Map<String, String> configs = new TreeMap<>(topic.getConfigsMap());
        for (Map.Entry<String, String> e : configs.entrySet()) {
            var err = TopicConfigs.validate(e.getKey(), e.getValue());
            if (err.isPresent()) {
                return Errors.of(ErrorCode.INVALID_CONFIG, err.get());
            }
        }
        List<List<Integer>> assignment;
        if (internal) {
            // The offsets topic's shape is the cluster's, whatever the asker said.
            int rf = config.offsetsTopicReplicationFactor();
            if (rf > placer.usableBrokers()) {
                return Errors.of(ErrorCode.INVALID_REPLICATION_FACTOR, "offsets.topic.replication.factor " + rf
                    + " is larger than the " + placer.usableBrokers() + " available brokers");
            }
            configs.put(TopicConfig.CLEANUP_POLICY, "compact");
            configs.put(TopicConfig.COMPRESSION_TYPE, "producer");
            configs.put(TopicConfig.SEGMENT_BYTES, "104857600");
            assignment = placer.place(config.offsetsTopicNumPartitions(), rf);
        } else if (topic.getAssignmentsCount() > 0) {
            if (topic.getNumPartitions() != -1 || topic.getReplicationFactor() != -1) {
                return Errors.of(ErrorCode.INVALID_REQUEST, "with explicit assignments, partitions and replication factor"
                    + " must be -1");
            }
            if (topic.getAssignmentsCount() > budget) {
                return tooManyPartitions(topic.getAssignmentsCount(), budget);
            }
            assignment = new ArrayList<>();
            for (int i = 0; i < topic.getAssignmentsCount(); i++) {
                CreatableTopic.Assignment a = topic.getAssignments(i);
                if (a.getPartition() != i) {
                    return Errors.of(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "assignments must list partitions 0.."
                        + (topic.getAssignmentsCount() - 1) + " in order");
                }
                String why = PartitionControl.checkAssignment(image, a.getReplicasList());
                if (why == null && a.getReplicasCount() != topic.getAssignments(0).getReplicasCount()) {
                    why = "every partition must have the same number of replicas";
                }
                if (why != null) {
                    return Errors.of(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "partition " + i + ": " + why);
                }
                assignment.add(a.getReplicasList());
            }
        } else {
            int partitions = topic.getNumPartitions() == -1 ? config.numPartitions() : topic.getNumPartitions();
            int rf = topic.getReplicationFactor() == -1 ? config.defaultReplicationFactor() : topic.getReplicationFactor();
            if (partitions < 1) {
                return Errors.of(ErrorCode.INVALID_PARTITIONS, "number of partitions must be at least 1, got " + partitions);
            }
            if (partitions > budget) {
                return tooManyPartitions(partitions, budget);
            }
            if (rf < 1) {
                return Errors.of(ErrorCode.INVALID_REPLICATION_FACTOR, "replication factor must be at least 1, got " + rf);
            }
            if (rf > placer.usableBrokers()) {
                return Errors.of(ErrorCode.INVALID_REPLICATION_FACTOR, "replication factor " + rf
                    + " is larger than the " + placer.usableBrokers() + " available brokers");
            }
            assignment = placer.place(partitions, rf);
        }
        Uuid id = Uuid.random(random);
        while (image.topic(id).isPresent()) {
            id = Uuid.random(random);
        }
        out.add(MetadataImage.wrap(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName(name)
            .setTopicId(PartitionControl.idBytes(id)).setInternal(internal))));
        int minIsr = configs.containsKey(TopicConfigs.MIN_INSYNC_REPLICAS)
            ? Integer.parseInt(configs.get(TopicConfigs.MIN_INSYNC_REPLICAS).trim())
            : TopicConfigs.minInsyncReplicas(image, config, name);
        for (int p = 0; p < assignment.size(); p++) {
            out.add(partitionRecord(id, p, assignment.get(p), minIsr));
        }
        configs.forEach((k, v) -> out.add(configRecord(ConfigResourceType.TOPIC, name, k, v)));
        r.setTopicId(PartitionControl.idBytes(id)).setNumPartitions(assignment.size())
            .setReplicationFactor(assignment.get(0).size());
        return Errors.NONE;
    }

    private static MetadataRecord partitionRecord(Uuid id, int partition, List<Integer> replicas, int minIsr) {
        return MetadataImage.wrap(MetadataRecord.newBuilder().setPartition(PartitionRecord.newBuilder()
            .setTopicId(PartitionControl.idBytes(id)).setPartition(partition).addAllReplicas(replicas).addAllIsr(replicas)
            .setLeader(replicas.get(0)).setLeaderEpoch(0).setPartitionEpoch(0).setBelowMinIsr(replicas.size() < minIsr)));
    }

    private static MetadataRecord configRecord(ConfigResourceType type, String resource, String name, String value) {
        ConfigRecord.Builder c = ConfigRecord.newBuilder().setResourceType(type).setResourceName(resource).setName(name);
        if (value != null) {
            c.setValue(value);
        }
        return MetadataImage.wrap(MetadataRecord.newBuilder().setConfig(c));
    }

    ControllerResult<DeleteTopicsResponse> deleteTopics(MetadataImage image, DeleteTopicsRequest request) {
        List<MetadataRecord> records = new ArrayList<>();
        DeleteTopicsResponse.Builder resp = DeleteTopicsResponse.newBuilder().setError(Errors.NONE);
        Set<String> done = new HashSet<>();
        for (String name : request.getNamesList()) {
            DeleteTopicsResponse.Result.Builder r = DeleteTopicsResponse.Result.newBuilder().setName(name).setError(Errors.NONE);
            TopicImage t = image.topic(name).orElse(null);
            if (t == null || done.contains(name)) {
                r.setError(Errors.of(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "topic '" + name + "' does not exist"));
            } else if (t.internal()) {
                r.setError(Errors.of(ErrorCode.INVALID_TOPIC, "topic '" + name + "' is internal and cannot be deleted"));
            } else {
                done.add(name);
                records.add(MetadataImage.wrap(MetadataRecord.newBuilder().setRemoveTopic(RemoveTopicRecord.newBuilder()
                    .setTopicId(PartitionControl.idBytes(t.id())))));
            }
            resp.addTopics(r);
        }
        return ControllerResult.of(records, resp.build());
    }

    ControllerResult<CreatePartitionsResponse> createPartitions(MetadataImage image, CreatePartitionsRequest request) {
        List<MetadataRecord> records = new ArrayList<>();
        CreatePartitionsResponse.Builder resp = CreatePartitionsResponse.newBuilder().setError(Errors.NONE);
        ReplicaPlacer placer = new ReplicaPlacer(image);
        Set<String> done = new HashSet<>();
        int budget = MAX_NEW_PARTITIONS;
        for (CreatePartitionsRequest.Topic req : request.getTopicsList()) {
            CreatePartitionsResponse.Result.Builder r = CreatePartitionsResponse.Result.newBuilder().setName(req.getName())
                .setError(Errors.NONE);
            TopicImage t = image.topic(req.getName()).orElse(null);
            if (t == null) {
                r.setError(Errors.of(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "topic '" + req.getName() + "' does not exist"));
            } else if (!done.add(req.getName())) {
                r.setError(Errors.of(ErrorCode.INVALID_REQUEST, "topic '" + req.getName() + "' is listed twice"));
            } else if (t.internal()) {
                r.setError(Errors.of(ErrorCode.INVALID_TOPIC, "the partitions of internal topic '" + t.name()
                    + "' cannot change"));
            } else if (req.getCount() <= t.numPartitions()) {
                r.setError(Errors.of(ErrorCode.INVALID_PARTITIONS, "topic '" + t.name() + "' has " + t.numPartitions()
                    + " partitions; partitions only grow, so the new count must be larger than that, got " + req.getCount()));
            } else if ((long) req.getCount() - t.numPartitions() > budget) {
                r.setError(tooManyPartitions(req.getCount() - t.numPartitions(), budget));
            } else {
                budget -= req.getCount() - t.numPartitions();
                int rf = t.partition(0).replicas().size();
                if (rf > placer.usableBrokers()) {
                    r.setError(Errors.of(ErrorCode.INVALID_REPLICATION_FACTOR, "replication factor " + rf
                        + " is larger than the " + placer.usableBrokers() + " available brokers"));
                } else {
                    List<List<Integer>> placed = placer.place(req.getCount() - t.numPartitions(), rf);
                    int minIsr = TopicConfigs.minInsyncReplicas(image, config, t.name());
                    if (!request.getValidateOnly()) {
                        for (int i = 0; i < placed.size(); i++) {
                            records.add(partitionRecord(t.id(), t.numPartitions() + i, placed.get(i), minIsr));
                        }
                    }
                }
            }
            resp.addTopics(r);
        }
        return ControllerResult.of(records, resp.build());
    }

    ControllerResult<AlterConfigsResponse> alterConfigs(MetadataImage image, AlterConfigsRequest request) {
        List<MetadataRecord> records = new ArrayList<>();
        for (AlterConfigsRequest.Op op : request.getOpsList()) {
            String value = op.hasValue() ? op.getValue() : null;
            String why = checkOp(image, op, op.getKind() == AlterConfigsRequest.Op.Kind.SET ? value : null);
            if (why == null && op.getKind() != AlterConfigsRequest.Op.Kind.SET) {
                // APPEND or SUBTRACT: the resource exists and knows the name; the new list is then checked as a SET
                if (!ListConfigs.isList(op.getResourceType(), op.getName())) {
                    why = "cannot " + op.getKind() + " config '" + op.getName() + "': it is not a list";
                } else if (value == null) {
                    why = op.getKind() + " of config '" + op.getName() + "' has no value";
                } else {
                    value = ListConfigs.apply(currentValue(image, op), op.getKind(), value);
                    why = checkOp(image, op, value);
                }
            }
            if (why != null) {
                ErrorCode code = why.startsWith("unknown topic '") ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.INVALID_CONFIG;
                return ControllerResult.answer(AlterConfigsResponse.newBuilder().setError(Errors.of(code, why)).build());
            }
            records.add(configRecord(op.getResourceType(), op.getResourceName(), op.getName(), value));
        }
        return ControllerResult.of(request.getValidateOnly() ? List.of() : records,
            AlterConfigsResponse.newBuilder().setError(Errors.NONE).build());
    }

    /**
     * The value an APPEND or SUBTRACT starts from: the resource's own, else the one it inherits (a topic: the
     * cluster-wide broker default, then the static default; a broker: the cluster-wide default, then the static
     * default of the topic config it sets). Null when there is none (an empty list).
     */
    private String currentValue(MetadataImage image, AlterConfigsRequest.Op op) {
        String own = image.configs(new ConfigResource(op.getResourceType(), op.getResourceName())).get(op.getName());
        if (own != null) {
            return own;
        }
        if (op.getResourceType() == ConfigResourceType.TOPIC) {
            return TopicConfigs.effective(image, config, op.getResourceName(), op.getName());
        }
        if (!op.getResourceName().isEmpty()) {
            String clusterDefault = image.configs(ConfigResource.broker("")).get(op.getName());
            if (clusterDefault != null) {
                return clusterDefault;
            }
        }
        return TopicConfigs.topicNameOfBrokerKey(op.getName()).map(t -> config.topicConfigDefaults().get(t)).orElse(null);
    }

    /** {@code name} is a registered broker's id as that broker looks its configs up: "3", not "03", "\u0663" or 2^40. */
    private static boolean isBrokerId(MetadataImage image, String name) {
        if (name.length() > 10 || !name.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return false;
        }
        long id = Long.parseLong(name);
        return id <= Integer.MAX_VALUE && String.valueOf(id).equals(name) && image.broker((int) id).isPresent();
    }

    private static String checkOp(MetadataImage image, AlterConfigsRequest.Op op, String value) {
        if (op.getResourceType() == ConfigResourceType.TOPIC) {
            TopicImage t = image.topic(op.getResourceName()).orElse(null);
            if (t == null) {
                return "unknown topic '" + op.getResourceName() + "'";
            }
            if (!TopicConfigs.isKnown(op.getName())) {
                return "unknown topic config '" + op.getName() + "'";
            }
            if (t.internal() && op.getName().equals(TopicConfig.CLEANUP_POLICY)) {
                return "the cleanup.policy of internal topic '" + t.name() + "' cannot change";
            }
            return value == null ? null : TopicConfigs.validate(op.getName(), value).orElse(null);
        }
        if (op.getResourceType() == ConfigResourceType.BROKER) {
            String name = op.getResourceName();
            if (!name.isEmpty() && !isBrokerId(image, name)) {
                return "unknown broker '" + name + "' (use '' for the cluster-wide default)";
            }
            if (ReplicationThrottleConfig.isKnown(op.getName())) {
                return value == null ? null : ReplicationThrottleConfig.problem(op.getName(), value).orElse(null);
            }
            var topicName = TopicConfigs.topicNameOfBrokerKey(op.getName());
            if (topicName.isEmpty()) {
                List<String> dynamic = new ArrayList<>(ReplicationThrottleConfig.DEF.names());
                TopicConfigs.names().stream().map(TopicConfigs::brokerKey).filter(Objects::nonNull).forEach(dynamic::add);
                return "'" + op.getName() + "' is not a dynamic broker config; dynamic ones are the replication "
                    + "throttles and the topic defaults: " + dynamic;
            }
            return value == null ? null : TopicConfigs.validate(topicName.get(), value).orElse(null);
        }
        if (op.getResourceType() == ConfigResourceType.USER || op.getResourceType() == ConfigResourceType.CLIENT) {
            if (op.getResourceName().isEmpty()) {
                return "a quota needs an entity name (a user, a client id, or " + ClientQuotaConfig.DEFAULT_ENTITY + ")";
            }
            if (!ClientQuotaConfig.isKnown(op.getName())) {
                return "unknown quota '" + op.getName() + "': one of " + ClientQuotaConfig.DEF.names();
            }
            return value == null ? null : ClientQuotaConfig.problem(op.getName(), value).orElse(null);
        }
        return "unknown config resource type " + op.getResourceType();
    }
}
