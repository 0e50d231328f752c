package io.raftline.client.admin;

import io.raftline.client.internals.net.ClientSecurity;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Message;
import io.raftline.client.common.Cluster;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.errors.ApiException;
import io.raftline.client.errors.Errors;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.errors.RetriableException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.errors.UnknownTopicOrPartitionException;
import io.raftline.client.internals.metadata.Metadata;
import io.raftline.client.internals.net.BrokerConnection;
import io.raftline.client.internals.net.ConnectionPool;
import io.raftline.client.internals.net.GrpcErrors;
import io.raftline.client.internals.retry.ExponentialBackoff;
import io.raftline.common.Time;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerInfo;
import io.raftline.protocol.broker.DeleteRecordsRequest;
import io.raftline.protocol.broker.DeleteRecordsResponse;
import io.raftline.protocol.broker.DescribeConfigsRequest;
import io.raftline.protocol.broker.DescribeConfigsResponse;
import io.raftline.protocol.broker.DescribeLogsRequest;
import io.raftline.protocol.broker.ReplicaChecksumsRequest;
import io.raftline.protocol.broker.ReplicaChecksumsResponse;
import io.raftline.protocol.broker.DescribeLogsResponse;
import io.raftline.protocol.broker.MetadataRequest;
import io.raftline.protocol.broker.MetadataResponse;
import io.raftline.protocol.broker.PartitionMetadata;
import io.raftline.protocol.broker.TopicMetadata;
import io.raftline.protocol.controller.AddVoterRequest;
import io.raftline.protocol.controller.AddVoterResponse;
import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.controller.AlterConfigsResponse;
import io.raftline.protocol.controller.AlterPartitionReassignmentsRequest;
import io.raftline.protocol.controller.AlterPartitionReassignmentsResponse;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreatePartitionsRequest;
import io.raftline.protocol.controller.CreatePartitionsResponse;
import io.raftline.protocol.controller.ControllerHint;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.protocol.controller.DeleteTopicsRequest;
import io.raftline.protocol.controller.DeleteTopicsResponse;
import io.raftline.protocol.controller.DescribeQuorumRequest;
import io.raftline.protocol.controller.DescribeQuorumResponse;
import io.raftline.protocol.controller.ElectLeadersRequest;
import io.raftline.protocol.controller.ElectLeadersResponse;
import io.raftline.protocol.controller.RemoveVoterRequest;
import io.raftline.protocol.controller.RemoveVoterResponse;
import io.raftline.protocol.metadata.ConfigResourceType;
import io.raftline.protocol.metadata.IntList;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The {@link Admin} implementation. Each call goes to any broker (brokers forward controller writes to the active
 * controller); a transport failure or a retriable top-level error is retried on the next broker after a growing
 * backoff, until the call's deadline. Item-level errors are final and fail only that item's future.
 */
final class RaftlineAdmin implements Admin {

    private final AdminClientConfig config;
    private final Time time;
    private final ConnectionPool pool;
    private final Metadata metadata;
    private final ScheduledExecutorService scheduler;
    private final GroupAdmin groups;
    private final int requestTimeoutMs;
    private final int apiTimeoutMs;
    private final long backoffMs;
    private final ExponentialBackoff retryBackoff;
    private final int retries;
    private volatile boolean closed;

    RaftlineAdmin(AdminClientConfig config, Time time) {
        this.config = config;
        this.time = time;
        this.requestTimeoutMs = config.getInt(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG);
        this.apiTimeoutMs = config.getInt(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG);
        this.backoffMs = config.getLong(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG);
        this.retryBackoff = ExponentialBackoff.ofClient(backoffMs,
            config.getLong(io.raftline.client.common.config.CommonClientConfigs.RETRY_BACKOFF_MAX_MS_CONFIG));
        this.retries = config.getInt(AdminClientConfig.RETRIES_CONFIG);
        this.pool = new ConnectionPool(config.getString(AdminClientConfig.CLIENT_ID_CONFIG), 64 * 1024 * 1024,
            io.raftline.client.internals.net.RequestMetrics.NONE, ClientSecurity.from(config));
        this.metadata = new Metadata(Metadata.parseBootstrap(config.getList(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)), pool, time,
            retryBackoff, () -> ThreadLocalRandom.current().nextDouble(), config.getLong("metadata.max.age.ms"), requestTimeoutMs);
        String clientId = config.getString(AdminClientConfig.CLIENT_ID_CONFIG);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "raftline-admin" + (clientId.isEmpty() ? "" : "-" + clientId));
            t.setDaemon(true);
            return t;
        });
        this.groups = new GroupAdmin(metadata, clientId, time, apiTimeoutMs, requestTimeoutMs, backoffMs, pool.security());
    }

    /** The newest metadata index any admin write of this client produced (read-your-writes). */
    private final AtomicLong lastWriteIndex = new AtomicLong();

    // ---- the retry engine ----

    /**
     * Runs {@code attempt} against a broker until it answers with no retriable top-level error, or the deadline
     * passes. {@code topLevel} extracts the response's top-level error (null if it has none).
     */
    private <T> CompletableFuture<T> call(String what, long timeoutMs, Function<BrokerConnection, CompletableFuture<T>> attempt,
                                          Function<T, Error> topLevel) {
        return call(what, timeoutMs, false, attempt, topLevel);
    }

    /**
     * As above; {@code toController}: a write the broker forwards to the active controller. Its first attempt goes to
     * the broker that runs beside the controller (same node id, a combined node) when the metadata names one, which
     * forwards it in-process instead of over the network; otherwise, and for retries, to any broker.
     */
    private <T> CompletableFuture<T> call(String what, long timeoutMs, boolean toController,
                                          Function<BrokerConnection, CompletableFuture<T>> attempt, Function<T, Error> topLevel) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("The admin client is closed"));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        long deadline = time.hiResMilliseconds() + timeoutMs;
        tryOnce(what, deadline, 0, toController, attempt, topLevel, result, null);
        return result;
    }

    /** The broker beside the active controller if the metadata knows one; else any broker. Starts a due refresh. */
    private Node controllerNode() {
        metadata.maybeRefresh();
        Node controller = metadata.cluster().controller();
        return controller != null ? controller : metadata.pickNode();
    }

    private <T> void tryOnce(String what, long deadline, int attemptNo, boolean toController,
                             Function<BrokerConnection, CompletableFuture<T>> attempt, Function<T, Error> topLevel,
                             CompletableFuture<T> result, RaftlineException previous) {
        Node node = toController && attemptNo == 0 ? controllerNode() : metadata.pickNode();
        BrokerConnection conn;
        try {
            conn = pool.get(node);
        } catch (IllegalStateException e) {
            result.completeExceptionally(e);
            return;
        }
        attempt.apply(conn).whenComplete((response, error) -> {
            RaftlineException failure = null;
            if (error != null) {
                failure = GrpcErrors.toException(error, conn.address());
                metadata.nodeFailed();
            } else {
                Error e = topLevel == null ? null : topLevel.apply(response);
                if (e != null && e.getCode() != ErrorCode.NONE) {
                    failure = Errors.toException(e);
                }
            }
            if (failure == null) {
                noteMetadataIndex(response);
                if (toController) {
                    noteController(response);
                }
                result.complete(response);
                return;
            }
            long now = time.hiResMilliseconds();
            long backoff = retryBackoff.backoffMs(attemptNo + 1, ThreadLocalRandom.current().nextDouble());
            boolean retriable = failure instanceof RetriableException && attemptNo < retries && !closed;
            RaftlineException last = failure;
            if (retriable && now + backoff < deadline) {
                scheduler.schedule(() -> tryOnce(what, deadline, attemptNo + 1, toController, attempt, topLevel, result, last),
                    backoff, TimeUnit.MILLISECONDS);
            } else if (retriable) {
                // The last attempt only had what was left of the deadline: when it ran out, the answer before it says
                // more about why the call failed than that attempt's own transport timeout.
                RaftlineException telling = failure instanceof TimeoutException && previous != null ? previous : failure;
                result.completeExceptionally(new TimeoutException(what + " timed out; last error: " + telling.getMessage(),
                    telling));
            } else {
                result.completeExceptionally(failure);
            }
        });
    }

    /**
     * Admin writes answer with the metadata index that holds the change; later reads ask brokers for an image at
     * least that new, so a describe right after a create sees the topic whichever broker answers.
     */
    private void noteMetadataIndex(Object response) {
        if (response instanceof Message m) {
            Descriptors.FieldDescriptor field = m.getDescriptorForType().findFieldByName("metadata_index");
            if (field != null && field.getJavaType() == Descriptors.FieldDescriptor.JavaType.LONG) {
                lastWriteIndex.accumulateAndGet((Long) m.getField(field), Math::max);
            }
        }
    }

    /**
     * A forwarded write's answer names the active controller: the metadata is stale if it names another one, or none
     * while that controller is a known broker (a controller that is no broker, a dedicated controller node, is never
     * the metadata's, and asks for no refresh).
     */
    private void noteController(Object response) {
        if (response instanceof Message m) {
            Descriptors.FieldDescriptor field = m.getDescriptorForType().findFieldByName("controller");
            if (field != null && m.hasField(field) && m.getField(field) instanceof ControllerHint hint && hint.getControllerId() >= 0) {
                Node known = metadata.cluster().controller();
                boolean stale = known == null ? metadata.cluster().nodeById(hint.getControllerId()) != null
                    : known.id() != hint.getControllerId();
                if (stale) {
                    metadata.requestUpdate();
                }
            }
        }
    }

    private long remaining(long deadline) {
        return Math.max(1, Math.min(requestTimeoutMs, deadline - time.hiResMilliseconds()));
    }

    private CompletableFuture<MetadataResponse> metadataCall(MetadataRequest original) {
        MetadataRequest request = original.toBuilder().setMinMetadataIndex(lastWriteIndex.get()).build();
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        return call("metadata", apiTimeoutMs, c -> c.unary((s, o) -> s.metadata(request, o), remaining(deadline)), null);
    }

    private static <K, V> Map<K, CompletableFuture<V>> fanOut(Collection<K> keys, CompletableFuture<?> whole,
                                                             Function<K, CompletableFuture<V>> perKey) {
        Map<K, CompletableFuture<V>> out = new LinkedHashMap<>();
        for (K k : keys) {
            out.put(k, perKey.apply(k));
        }
        return out;
    }

    private static CompletableFuture<Void> itemResult(CompletableFuture<?> whole, Function<Object, Error> errorOf) {
        return whole.thenApply(r -> {
            Error e = errorOf.apply(r);
            if (e != null && e.getCode() != ErrorCode.NONE) {
                throw Errors.toException(e);
            }
            return null;
        });
    }

    // ---- topics ----

    @Override
    public CreateTopicsResult createTopics(Collection<NewTopic> newTopics, CreateTopicsOptions options) {
        CreateTopicsRequest.Builder req = CreateTopicsRequest.newBuilder().setValidateOnly(options.shouldValidateOnly());
        for (NewTopic t : newTopics) {
            CreatableTopic.Builder ct = CreatableTopic.newBuilder().setName(t.name()).setNumPartitions(t.numPartitions())
                .setReplicationFactor(t.replicationFactor()).putAllConfigs(t.configs());
            if (t.replicasAssignments() != null) {
                // the controller takes the partitions in order, 0..n-1; NewTopic's map has no order of its own
                new TreeMap<>(t.replicasAssignments()).forEach((p, replicas) ->
                    ct.addAssignments(CreatableTopic.Assignment.newBuilder().setPartition(p).addAllReplicas(replicas)));
            }
            req.addTopics(ct);
        }
        int timeout = options.timeoutMs() != null ? options.timeoutMs() : apiTimeoutMs;
        long deadline = time.hiResMilliseconds() + timeout;
        CreateTopicsRequest request = req.build();
        CompletableFuture<CreateTopicsResponse> whole = call("createTopics", timeout, true,
            c -> c.unary((s, o) -> s.createTopics(request, o), remaining(deadline)), CreateTopicsResponse::getError);
        List<String> names = newTopics.stream().map(NewTopic::name).toList();
        return new CreateTopicsResult(fanOut(names, whole, name -> itemResult(whole, r -> ((CreateTopicsResponse) r).getTopicsList()
            .stream().filter(x -> x.getName().equals(name)).map(CreateTopicsResponse.Result::getError).findFirst()
            .orElse(missing("createTopics", name)))));
    }

    private static Error missing(String what, Object item) {
        return Error.newBuilder().setCode(ErrorCode.UNKNOWN).setMessage(what + ": the broker's answer does not mention " + item).build();
    }

    @Override
    public DeleteTopicsResult deleteTopics(Collection<String> topics) {
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        DeleteTopicsRequest request = DeleteTopicsRequest.newBuilder().addAllNames(topics).build();
        CompletableFuture<DeleteTopicsResponse> whole = call("deleteTopics", apiTimeoutMs, true,
            c -> c.unary((s, o) -> s.deleteTopics(request, o), remaining(deadline)), DeleteTopicsResponse::getError);
        return new DeleteTopicsResult(fanOut(List.copyOf(topics), whole, name -> itemResult(whole, r -> ((DeleteTopicsResponse) r)
            .getTopicsList().stream().filter(x -> x.getName().equals(name)).map(DeleteTopicsResponse.Result::getError).findFirst()
            .orElse(missing("deleteTopics", name)))));
    }

    @Override
    public ListTopicsResult listTopics(ListTopicsOptions options) {
        CompletableFuture<Map<String, TopicListing>> f = metadataCall(MetadataRequest.newBuilder().setAllTopics(true).build())
            .thenApply(r -> {
                Map<String, TopicListing> out = new HashMap<>();
                for (TopicMetadata t : r.getTopicsList()) {
                    if (t.getError().getCode() == ErrorCode.NONE && (options.shouldListInternal() || !t.getInternal())) {
                        out.put(t.getName(), new TopicListing(t.getName(), topicId(t), t.getInternal()));
                    }
                }
                return out;
            });
        return new ListTopicsResult(f);
    }

    private static String topicId(TopicMetadata t) {
        return t.getTopicId().isEmpty() ? null : Base64.getUrlEncoder().withoutPadding().encodeToString(t.getTopicId().toByteArray());
    }

    @Override
    public DescribeTopicsResult describeTopics(Collection<String> topicNames) {
        CompletableFuture<MetadataResponse> whole = metadataCall(MetadataRequest.newBuilder().addAllTopics(topicNames).build());
        // One parse of the answer for all the topics asked (not one whole-cluster parse and list scan per topic).
        CompletableFuture<DescribedTopics> parsed = whole.thenApply(DescribedTopics::new);
        Map<String, CompletableFuture<TopicDescription>> out = new LinkedHashMap<>();
        for (String name : topicNames) {
            out.put(name, parsed.thenApply(d -> d.describe(name)));
        }
        return new DescribeTopicsResult(out);
    }

    /** A metadata answer indexed once: its brokers, and its topics by name (the first entry of a name). */
    private static final class DescribedTopics {
        private final Cluster cluster;
        private final Map<String, TopicMetadata> topics = new HashMap<>();

        DescribedTopics(MetadataResponse r) {
            this.cluster = Metadata.toCluster(r, null);
            for (TopicMetadata t : r.getTopicsList()) {
                topics.putIfAbsent(t.getName(), t);
            }
        }

        TopicDescription describe(String name) {
            TopicMetadata t = topics.get(name);
            if (t == null) {
                throw new UnknownTopicOrPartitionException("Topic '" + name + "' does not exist");
            }
            if (t.getError().getCode() != ErrorCode.NONE) {
                throw Errors.toException(t.getError());
            }
            List<TopicPartitionInfo> parts = new ArrayList<>();
            for (PartitionMetadata p : t.getPartitionsList()) {
                parts.add(new TopicPartitionInfo(p.getPartition(), p.getLeader() < 0 ? null : node(cluster, p.getLeader()),
                    p.getLeaderEpoch(), nodes(cluster, p.getReplicasList()), nodes(cluster, p.getIsrList()),
                    p.getAddingReplicasList(), p.getRemovingReplicasList()));
            }
            parts.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
            return new TopicDescription(name, t.getInternal(), parts, topicId(t));
        }
    }

    private static Node node(Cluster cluster, int id) {
        Node n = cluster.nodeById(id);
        return n != null ? n : new Node(id, "", -1, null);
    }

    private static List<Node> nodes(Cluster cluster, List<Integer> ids) {
        return ids.stream().map(id -> node(cluster, id)).toList();
    }

    @Override
    public CreatePartitionsResult createPartitions(Map<String, NewPartitions> newPartitions) {
        CreatePartitionsRequest.Builder req = CreatePartitionsRequest.newBuilder();
        newPartitions.forEach((t, n) -> req.addTopics(CreatePartitionsRequest.Topic.newBuilder().setName(t).setCount(n.totalCount())));
        CreatePartitionsRequest request = req.build();
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        CompletableFuture<CreatePartitionsResponse> whole = call("createPartitions", apiTimeoutMs,
            c -> c.unary((s, o) -> s.createPartitions(request, o), remaining(deadline)), CreatePartitionsResponse::getError);
        return new CreatePartitionsResult(fanOut(newPartitions.keySet(), whole, name -> itemResult(whole,
            r -> ((CreatePartitionsResponse) r).getTopicsList().stream().filter(x -> x.getName().equals(name))
                .map(CreatePartitionsResponse.Result::getError).findFirst().orElse(missing("createPartitions", name)))));
    }

    // ---- cluster, configs ----

    @Override
    public CompletableFuture<List<BrokerDescription>> describeBrokers() {
        return metadataCall(MetadataRequest.newBuilder().setAllTopics(false).build()).thenApply(r -> r.getBrokersList()
            .stream()
            .sorted(Comparator.comparingInt(BrokerInfo::getId))
            .map(b -> new BrokerDescription(b.getId(), b.getHost(), b.getPort(), b.getRack().isEmpty() ? null : b.getRack(),
                brokerState(b), b.getEpoch()))
            .toList());
    }

    private static String brokerState(BrokerInfo b) {
        return switch (b.getState()) {
            case SHUTTING_DOWN -> "shutting-down";
            case FENCED -> "fenced";
            case ACTIVE -> b.getFenced() ? "fenced" : "active";
            default -> b.getFenced() ? "fenced" : "active";
        };
    }

    @Override
    public DescribeClusterResult describeCluster() {
        return new DescribeClusterResult(metadataCall(MetadataRequest.newBuilder().setAllTopics(false).build())
            .thenApply(r -> Metadata.toCluster(r, null)));
    }

    private static ConfigResourceType wireType(ConfigResource.Type type) {
        return switch (type) {
            case TOPIC -> ConfigResourceType.TOPIC;
            case BROKER -> ConfigResourceType.BROKER;
            case USER -> ConfigResourceType.USER;
            case CLIENT -> ConfigResourceType.CLIENT;
        };
    }

    @Override
    public DescribeConfigsResult describeConfigs(Collection<ConfigResource> resources) {
        Map<ConfigResource, CompletableFuture<Config>> out = new LinkedHashMap<>();
        for (ConfigResource res : resources) {
            DescribeConfigsRequest request = DescribeConfigsRequest.newBuilder().setResourceType(wireType(res.type()))
                .setResourceName(res.name()).setMinMetadataIndex(lastWriteIndex.get()).build();
            long deadline = time.hiResMilliseconds() + apiTimeoutMs;
            out.put(res, call("describeConfigs", apiTimeoutMs,
                c -> c.<DescribeConfigsResponse>unary((s, o) -> s.describeConfigs(request, o), remaining(deadline)),
                DescribeConfigsResponse::getError)
                .thenApply(r -> new Config(r.getConfigsList().stream()
                    .map(e -> new ConfigEntry(e.getName(), e.getValue(), e.getSource(), e.getReadOnly())).toList())));
        }
        return new DescribeConfigsResult(out);
    }

    @Override
    public AlterConfigsResult incrementalAlterConfigs(Map<ConfigResource, Collection<AlterConfigOp>> configs) {
        AlterConfigsRequest.Builder req = AlterConfigsRequest.newBuilder();
        configs.forEach((res, ops) -> {
            for (AlterConfigOp op : ops) {
                AlterConfigsRequest.Op.Builder b = AlterConfigsRequest.Op.newBuilder().setResourceType(wireType(res.type()))
                    .setResourceName(res.name()).setName(op.configEntry().name());
                if (op.opType() == AlterConfigOp.OpType.SET) {
                    if (op.configEntry().value() == null) {
                        throw new IllegalArgumentException("SET of " + op.configEntry().name() + " needs a value");
                    }
                    b.setValue(op.configEntry().value());
                }
                req.addOps(b);
            }
        });
        AlterConfigsRequest request = req.build();
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        CompletableFuture<AlterConfigsResponse> whole = call("incrementalAlterConfigs", apiTimeoutMs,
            c -> c.unary((s, o) -> s.alterConfigs(request, o), remaining(deadline)), AlterConfigsResponse::getError);
        return new AlterConfigsResult(fanOut(configs.keySet(), whole, res -> whole.thenApply(r -> (Void) null)));
    }

    // ---- leaders, reassignments, quorum ----

    private static io.raftline.protocol.TopicPartition wire(TopicPartition tp) {
        return io.raftline.protocol.TopicPartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition()).build();
    }

    @Override
    public ElectLeadersResult electLeaders(ElectionType electionType, Set<TopicPartition> partitions) {
        ElectLeadersRequest.Builder req = ElectLeadersRequest.newBuilder().setType(electionType == ElectionType.PREFERRED
            ? io.raftline.protocol.controller.ElectionType.PREFERRED : io.raftline.protocol.controller.ElectionType.UNCLEAN);
        if (partitions != null) {
            partitions.forEach(tp -> req.addPartitions(wire(tp)));
        }
        ElectLeadersRequest request = req.build();
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        return new ElectLeadersResult(call("electLeaders", apiTimeoutMs,
            c -> c.<ElectLeadersResponse>unary((s, o) -> s.electLeaders(request, o), remaining(deadline)), ElectLeadersResponse::getError)
            .thenApply(r -> {
                Map<TopicPartition, Optional<Throwable>> out = new LinkedHashMap<>();
                for (ElectLeadersResponse.Result x : r.getPartitionsList()) {
                    out.put(new TopicPartition(x.getPartition().getTopic(), x.getPartition().getPartition()),
                        Optional.ofNullable(Errors.toException(x.getError())));
                }
                return out;
            }));
    }

    @Override
    public AlterPartitionReassignmentsResult alterPartitionReassignments(
            Map<TopicPartition, Optional<NewPartitionReassignment>> reassignments) {
        AlterPartitionReassignmentsRequest.Builder req = AlterPartitionReassignmentsRequest.newBuilder();
        reassignments.forEach((tp, target) -> {
            AlterPartitionReassignmentsRequest.Reassignment.Builder b = AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
                .setPartition(wire(tp));
            target.ifPresent(t -> b.setReplicas(IntList.newBuilder().addAllValues(t.targetReplicas())));
            req.addReassignments(b);
        });
        AlterPartitionReassignmentsRequest request = req.build();
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        CompletableFuture<AlterPartitionReassignmentsResponse> whole = call("alterPartitionReassignments", apiTimeoutMs,
            c -> c.unary((s, o) -> s.alterPartitionReassignments(request, o), remaining(deadline)),
            AlterPartitionReassignmentsResponse::getError);
        return new AlterPartitionReassignmentsResult(fanOut(reassignments.keySet(), whole, tp -> itemResult(whole,
            r -> ((AlterPartitionReassignmentsResponse) r).getPartitionsList().stream()
                .filter(x -> x.getPartition().getTopic().equals(tp.topic()) && x.getPartition().getPartition() == tp.partition())
                .map(AlterPartitionReassignmentsResponse.Result::getError).findFirst().orElse(missing("reassignment", tp)))));
    }

    @Override
    public ListPartitionReassignmentsResult listPartitionReassignments() {
        return new ListPartitionReassignmentsResult(metadataCall(MetadataRequest.newBuilder().setAllTopics(true).build())
            .thenApply(r -> {
                Map<TopicPartition, PartitionReassignment> out = new LinkedHashMap<>();
                for (TopicMetadata t : r.getTopicsList()) {
                    for (PartitionMetadata p : t.getPartitionsList()) {
                        if (p.getAddingReplicasCount() > 0 || p.getRemovingReplicasCount() > 0) {
                            out.put(new TopicPartition(t.getName(), p.getPartition()), new PartitionReassignment(p.getReplicasList(),
                                p.getAddingReplicasList(), p.getRemovingReplicasList()));
                        }
                    }
                }
                return out;
            }));
    }

    @Override
    public DescribeMetadataQuorumResult describeMetadataQuorum() {
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        DescribeQuorumRequest request = DescribeQuorumRequest.getDefaultInstance();
        return new DescribeMetadataQuorumResult(call("describeMetadataQuorum", apiTimeoutMs,
            c -> c.<DescribeQuorumResponse>unary((s, o) -> s.describeQuorum(request, o), remaining(deadline)),
            DescribeQuorumResponse::getError)
            .thenApply(r -> new QuorumInfo(r.getLeaderId(), r.getTerm(), r.getControllerEpoch(), r.getCommitIndex(),
                r.getVotersList().stream().map(RaftlineAdmin::replica).toList(),
                r.getListenersList().stream().map(RaftlineAdmin::replica).toList())));
    }

    @Override
    public CompletableFuture<Void> addMetadataVoter(int nodeId, String quorumEndpoint) {
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        AddVoterRequest request = AddVoterRequest.newBuilder().setId(nodeId).setEndpoint(quorumEndpoint).build();
        return call("addMetadataVoter", apiTimeoutMs,
            c -> c.<AddVoterResponse>unary((s, o) -> s.addVoter(request, o), remaining(deadline)), AddVoterResponse::getError)
            .thenApply(r -> null);
    }

    @Override
    public CompletableFuture<Void> removeMetadataVoter(int nodeId) {
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        RemoveVoterRequest request = RemoveVoterRequest.newBuilder().setId(nodeId).build();
        return call("removeMetadataVoter", apiTimeoutMs,
            c -> c.<RemoveVoterResponse>unary((s, o) -> s.removeVoter(request, o), remaining(deadline)),
            RemoveVoterResponse::getError)
            .thenApply(r -> null);
    }

    // ---- ACLs ----

    @Override
    public CompletableFuture<Void> createAcls(Collection<io.raftline.protocol.acl.AclBinding> bindings) {
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        io.raftline.protocol.controller.CreateAclsRequest request =
            io.raftline.protocol.controller.CreateAclsRequest.newBuilder().addAllBindings(bindings).build();
        return call("createAcls", apiTimeoutMs, true,
            c -> c.<io.raftline.protocol.controller.CreateAclsResponse>unary((s, o) -> s.createAcls(request, o),
                remaining(deadline)), io.raftline.protocol.controller.CreateAclsResponse::getError)
            .thenApply(r -> null);
    }

    @Override
    public CompletableFuture<List<io.raftline.protocol.acl.AclBinding>> deleteAcls(
        Collection<io.raftline.protocol.acl.AclFilter> filters) {
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        io.raftline.protocol.controller.DeleteAclsRequest request =
            io.raftline.protocol.controller.DeleteAclsRequest.newBuilder().addAllFilters(filters).build();
        return call("deleteAcls", apiTimeoutMs, true,
            c -> c.<io.raftline.protocol.controller.DeleteAclsResponse>unary((s, o) -> s.deleteAcls(request, o),
                remaining(deadline)), io.raftline.protocol.controller.DeleteAclsResponse::getError)
            .thenApply(r -> List.copyOf(r.getRemovedList()));
    }

    @Override
    public CompletableFuture<List<io.raftline.protocol.acl.AclBinding>> describeAcls(io.raftline.protocol.acl.AclFilter filter) {
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        io.raftline.protocol.broker.DescribeAclsRequest request = io.raftline.protocol.broker.DescribeAclsRequest.newBuilder()
            .setFilter(filter).setMinMetadataIndex(lastWriteIndex.get()).build();
        return call("describeAcls", apiTimeoutMs,
            c -> c.<io.raftline.protocol.broker.DescribeAclsResponse>unary((s, o) -> s.describeAcls(request, o),
                remaining(deadline)), io.raftline.protocol.broker.DescribeAclsResponse::getError)
            .thenApply(r -> List.copyOf(r.getBindingsList()));
    }

    // ---- SCRAM users ----

    @Override
    public CompletableFuture<Void> alterUserScramCredentials(
        Collection<io.raftline.protocol.controller.AlterUserScramCredentialsRequest.Upsertion> upsertions,
        Collection<io.raftline.protocol.controller.AlterUserScramCredentialsRequest.Deletion> deletions) {
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        io.raftline.protocol.controller.AlterUserScramCredentialsRequest request =
            io.raftline.protocol.controller.AlterUserScramCredentialsRequest.newBuilder().addAllUpsertions(upsertions)
                .addAllDeletions(deletions).build();
        return call("alterUserScramCredentials", apiTimeoutMs, true,
            c -> c.<io.raftline.protocol.controller.AlterUserScramCredentialsResponse>unary(
                (s, o) -> s.alterUserScramCredentials(request, o), remaining(deadline)),
            io.raftline.protocol.controller.AlterUserScramCredentialsResponse::getError)
            .thenApply(r -> null);
    }

    @Override
    public CompletableFuture<List<io.raftline.protocol.broker.DescribeUserScramCredentialsResponse.Credential>>
        describeUserScramCredentials(Collection<String> names) {
        long deadline = time.hiResMilliseconds() + apiTimeoutMs;
        io.raftline.protocol.broker.DescribeUserScramCredentialsRequest request =
            io.raftline.protocol.broker.DescribeUserScramCredentialsRequest.newBuilder()
                .addAllNames(names == null ? List.of() : names).setMinMetadataIndex(lastWriteIndex.get()).build();
        return call("describeUserScramCredentials", apiTimeoutMs,
            c -> c.<io.raftline.protocol.broker.DescribeUserScramCredentialsResponse>unary(
                (s, o) -> s.describeUserScramCredentials(request, o), remaining(deadline)),
            io.raftline.protocol.broker.DescribeUserScramCredentialsResponse::getError)
            .thenApply(r -> List.copyOf(r.getCredentialsList()));
    }

    private static QuorumInfo.ReplicaState replica(DescribeQuorumResponse.Peer p) {
        return new QuorumInfo.ReplicaState(p.getId(), p.getEndpoint(), p.getLagEntries(), p.getLastContactMs());
    }

    // ---- logs ----

    @Override
    public DescribeLogsResult describeLogs(Collection<Integer> brokerIds, Duration perBrokerTimeout) {
        Cluster cluster;
        try {
            cluster = metadataCall(MetadataRequest.newBuilder().setAllTopics(false).build())
                .thenApply(r -> Metadata.toCluster(r, null)).get(apiTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw new io.raftline.client.errors.InterruptException(e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            CompletableFuture<List<ReplicaLogInfo>> failed = CompletableFuture.failedFuture(GrpcErrors.toException(e, "metadata"));
            Map<Integer, CompletableFuture<List<ReplicaLogInfo>>> out = new LinkedHashMap<>();
            (brokerIds == null ? List.<Integer>of() : brokerIds).forEach(id -> out.put(id, failed));
            return new DescribeLogsResult(out);
        }
        Collection<Integer> ids = brokerIds != null ? brokerIds : cluster.nodes().stream().map(Node::id).sorted().toList();
        Map<Integer, CompletableFuture<List<ReplicaLogInfo>>> out = new LinkedHashMap<>();
        for (int id : ids) {
            Node node = cluster.nodeById(id);
            if (node == null) {
                out.put(id, CompletableFuture.failedFuture(new ApiException("Broker " + id + " is not in the cluster metadata")));
                continue;
            }
            // Read-your-writes: a log described right after this client created its topic exists on the broker.
            DescribeLogsRequest request = DescribeLogsRequest.newBuilder().setMinMetadataIndex(lastWriteIndex.get()).build();
            out.put(id, pool.get(node).<DescribeLogsResponse>unary((s, o) -> s.describeLogs(request, o), perBrokerTimeout.toMillis())
                .thenApply(RaftlineAdmin::requireNoError)
                .thenApply(r -> r.getReplicasList().stream().filter(x -> x.getError().getCode() == ErrorCode.NONE)
                    .map(x -> new ReplicaLogInfo(id, new TopicPartition(x.getTopic(), x.getPartition()), x.getIsLeader(),
                        x.getLogStartOffset(), x.getLogEndOffset(), x.getHighWatermark(), x.getSizeBytes(),
                        x.getLogDir().isEmpty() ? null : x.getLogDir())).toList()));
        }
        return new DescribeLogsResult(out);
    }

    @Override
    public CompletableFuture<List<ReplicaChecksum>> replicaChecksums(int brokerId, Map<TopicPartition, long[]> ranges,
                                                                     Duration timeout) {
        return metadataCall(MetadataRequest.newBuilder().setAllTopics(false).build())
            .thenApply(r -> Metadata.toCluster(r, null))
            .thenCompose(cluster -> {
                Node node = cluster.nodeById(brokerId);
                if (node == null) {
                    return CompletableFuture.failedFuture(new ApiException("Broker " + brokerId
                        + " is not in the cluster metadata"));
                }
                ReplicaChecksumsRequest.Builder request = ReplicaChecksumsRequest.newBuilder();
                ranges.forEach((tp, range) -> request.addPartitions(ReplicaChecksumsRequest.Range.newBuilder()
                    .setTopic(tp.topic()).setPartition(tp.partition()).setFromOffset(range[0]).setToOffset(range[1])));
                return pool.get(node).<ReplicaChecksumsResponse>unary((s, o) -> s.replicaChecksums(request.build(), o),
                    timeout.toMillis());
            })
            .thenApply(RaftlineAdmin::requireNoError)
            .thenApply(r -> r.getPartitionsList().stream().map(c -> new ReplicaChecksum(brokerId,
                new TopicPartition(c.getTopic(), c.getPartition()), c.getFromOffset(), c.getToOffset(), c.getCrc32C(),
                c.getBatches(), c.getLogStartOffset(), c.getHighWatermark(),
                c.getError().getCode() == ErrorCode.NONE ? null : c.getError().getCode() + ": " + c.getError().getMessage()))
                .toList());
    }

    /** A response whose top-level {@code error} is set fails with its typed exception (an ACL refusal). */
    private static <R extends com.google.protobuf.Message> R requireNoError(R response) {
        com.google.protobuf.Descriptors.FieldDescriptor field = response.getDescriptorForType().findFieldByName("error");
        if (field != null && response.hasField(field)) {
            Error e = (Error) response.getField(field);
            if (e.getCode() != ErrorCode.NONE) {
                throw Errors.toException(e);
            }
        }
        return response;
    }

    // ---- records ----

    @Override
    public DeleteRecordsResult deleteRecords(Map<TopicPartition, RecordsToDelete> recordsToDelete) {
        Map<TopicPartition, CompletableFuture<DeletedRecords>> futures = new LinkedHashMap<>();
        recordsToDelete.keySet().forEach(tp -> futures.put(tp, new CompletableFuture<>()));
        if (closed) {
            futures.values().forEach(f -> f.completeExceptionally(new IllegalStateException("The admin client is closed")));
        } else {
            deleteRecordsRound(new LinkedHashMap<>(recordsToDelete), futures, time.hiResMilliseconds() + apiTimeoutMs, 0);
        }
        return new DeleteRecordsResult(futures);
    }

    /**
     * One round: finds each pending partition's leader in fresh metadata and asks each leader for its partitions at
     * once. Final errors (unknown topic or partition, an offset out of range) fail their partition; retriable ones
     * (a leader change, an unreachable leader) are tried again after the retry backoff, until the deadline.
     */
    private void deleteRecordsRound(Map<TopicPartition, RecordsToDelete> pending,
                                    Map<TopicPartition, CompletableFuture<DeletedRecords>> futures, long deadline, int attemptNo) {
        List<String> topics = pending.keySet().stream().map(TopicPartition::topic).distinct().toList();
        metadataCall(MetadataRequest.newBuilder().addAllTopics(topics).build()).whenComplete((response, error) -> {
            try {
                if (error != null) {
                    throw GrpcErrors.toException(error, "metadata");
                }
                deleteRecordsWith(response, pending, futures, deadline, attemptNo);
            } catch (RuntimeException e) {
                // futures already completed keep their outcome
                pending.keySet().forEach(tp -> futures.get(tp).completeExceptionally(e));
            }
        });
    }

    private void deleteRecordsWith(MetadataResponse response, Map<TopicPartition, RecordsToDelete> pending,
                                   Map<TopicPartition, CompletableFuture<DeletedRecords>> futures, long deadline, int attemptNo) {
        Cluster cluster = Metadata.toCluster(response, null);
        Map<String, TopicMetadata> byName = new HashMap<>();
        response.getTopicsList().forEach(t -> byName.putIfAbsent(t.getName(), t));
        Map<TopicPartition, RaftlineException> retry = new ConcurrentHashMap<>();
        Map<Node, List<TopicPartition>> byLeader = new LinkedHashMap<>();
        for (TopicPartition tp : pending.keySet()) {
            TopicMetadata t = byName.get(tp.topic());
            ErrorCode code = t == null ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : t.getError().getCode();
            Node leader = cluster.leaderFor(tp);
            if (code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) {
                futures.get(tp).completeExceptionally(new UnknownTopicOrPartitionException("Topic '" + tp.topic()
                    + "' does not exist"));
            } else if (code != ErrorCode.NONE) {
                settle(tp, Errors.toException(t.getError()), futures, retry);
            } else if (t.getPartitionsList().stream().noneMatch(p -> p.getPartition() == tp.partition())) {
                futures.get(tp).completeExceptionally(new UnknownTopicOrPartitionException("Partition " + tp.partition()
                    + " of topic '" + tp.topic() + "' does not exist"));
            } else if (leader == null) {
                retry.put(tp, new io.raftline.client.errors.LeaderNotAvailableException("Partition " + tp + " has no leader"));
            } else {
                byLeader.computeIfAbsent(leader, n -> new ArrayList<>()).add(tp);
            }
        }
        List<CompletableFuture<?>> sent = new ArrayList<>();
        byLeader.forEach((leader, partitions) -> sent.add(deleteRecordsAt(leader, partitions, pending, futures, retry, deadline)));
        CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0])).whenComplete((v, e) -> {
            if (retry.isEmpty()) {
                return;
            }
            long backoff = retryBackoff.backoffMs(attemptNo + 1, ThreadLocalRandom.current().nextDouble());
            if (closed || attemptNo >= retries || time.hiResMilliseconds() + backoff >= deadline) {
                retry.forEach((tp, failure) -> futures.get(tp).completeExceptionally(new TimeoutException(
                    "deleteRecords of " + tp + " timed out; last error: " + failure.getMessage(), failure)));
                return;
            }
            metadata.requestUpdate();
            Map<TopicPartition, RecordsToDelete> again = new LinkedHashMap<>();
            retry.keySet().forEach(tp -> again.put(tp, pending.get(tp)));
            scheduler.schedule(() -> deleteRecordsRound(again, futures, deadline, attemptNo + 1), backoff, TimeUnit.MILLISECONDS);
        });
    }

    /** Asks one leader; each partition's answer completes its future or goes to {@code retry}. */
    private CompletableFuture<?> deleteRecordsAt(Node leader, List<TopicPartition> partitions,
                                                 Map<TopicPartition, RecordsToDelete> pending,
                                                 Map<TopicPartition, CompletableFuture<DeletedRecords>> futures,
                                                 Map<TopicPartition, RaftlineException> retry, long deadline) {
        DeleteRecordsRequest.Builder req = DeleteRecordsRequest.newBuilder();
        partitions.forEach(tp -> req.addPartitions(DeleteRecordsRequest.PartitionOffset.newBuilder().setTopic(tp.topic())
            .setPartition(tp.partition()).setOffset(pending.get(tp).beforeOffset())));
        // the leader's wait for its ISR ends before this call's own deadline, so its answer (or timeout) arrives
        long rpcTimeoutMs = remaining(deadline);
        DeleteRecordsRequest request = req.setTimeoutMs((int) Math.max(1, rpcTimeoutMs * 3 / 4)).build();
        BrokerConnection conn = pool.get(leader);
        return conn.<DeleteRecordsResponse>unary((s, o) -> s.deleteRecords(request, o), rpcTimeoutMs).handle((r, error) -> {
            if (error != null) {
                RaftlineException failure = GrpcErrors.toException(error, conn.address());
                metadata.nodeFailed();
                partitions.forEach(tp -> settle(tp, failure, futures, retry));
                return null;
            }
            Map<TopicPartition, DeleteRecordsResponse.PartitionResult> answers = new HashMap<>();
            r.getPartitionsList().forEach(x -> answers.put(new TopicPartition(x.getTopic(), x.getPartition()), x));
            for (TopicPartition tp : partitions) {
                DeleteRecordsResponse.PartitionResult x = answers.get(tp);
                if (x == null) {
                    futures.get(tp).completeExceptionally(Errors.toException(missing("deleteRecords", tp)));
                } else if (x.getError().getCode() == ErrorCode.NONE) {
                    futures.get(tp).complete(new DeletedRecords(x.getLowWatermark()));
                } else {
                    settle(tp, Errors.toException(x.getError()), futures, retry);
                }
            }
            return null;
        });
    }

    /** A retriable failure goes to the next round; any other fails the partition. */
    private static void settle(TopicPartition tp, RaftlineException failure,
                               Map<TopicPartition, CompletableFuture<DeletedRecords>> futures,
                               Map<TopicPartition, RaftlineException> retry) {
        if (failure instanceof RetriableException) {
            retry.put(tp, failure);
        } else {
            futures.get(tp).completeExceptionally(failure);
        }
    }

    // ---- consumer groups (GroupAdmin) ----

    @Override
    public CompletableFuture<List<ConsumerGroupListing>> listConsumerGroups() {
        return groups.list();
    }

    @Override
    public Map<String, CompletableFuture<ConsumerGroupDescription>> describeConsumerGroups(Collection<String> groupIds) {
        Map<String, CompletableFuture<ConsumerGroupDescription>> out = new LinkedHashMap<>();
        groupIds.forEach(g -> out.put(g, groups.describe(g)));
        return out;
    }

    @Override
    public CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> listConsumerGroupOffsets(String groupId) {
        return groups.listOffsets(groupId);
    }

    @Override
    public Map<String, CompletableFuture<Void>> deleteConsumerGroups(Collection<String> groupIds) {
        return GroupAdmin.each(groupIds, groups::delete);
    }

    @Override
    public CompletableFuture<Void> alterConsumerGroupOffsets(String groupId, Map<TopicPartition, OffsetAndMetadata> offsets) {
        return groups.alterOffsets(groupId, offsets);
    }

    @Override
    public void close(Duration timeout) {
        closed = true;
        groups.close();
        scheduler.shutdown();
        try {
            scheduler.awaitTermination(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        scheduler.shutdownNow();
        pool.close();
    }

    /** The parsed config this client runs with. */
    AdminClientConfig config() {
        return config;
    }
}
