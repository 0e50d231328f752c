package io.raftline.broker.rpc;

import com.google.protobuf.Descriptors;
import com.google.protobuf.Message;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.raftline.broker.log.LogConfig;
import io.raftline.broker.metrics.BrokerMetrics;
import io.raftline.broker.replica.ReplicaManager;
import io.raftline.broker.security.RequestAuthorizer;
import io.raftline.acl.Authorizer;
import io.raftline.protocol.Error;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.ResourceType;
import io.raftline.grpc.TransportSecurity;
import io.raftline.protocol.broker.DescribeAclsRequest;
import io.raftline.protocol.broker.DescribeUserScramCredentialsRequest;
import io.raftline.protocol.broker.DescribeUserScramCredentialsResponse;
import io.raftline.protocol.broker.SaslAuthenticateRequest;
import io.raftline.protocol.broker.SaslAuthenticateResponse;
import io.raftline.protocol.controller.AlterUserScramCredentialsRequest;
import io.raftline.protocol.controller.AlterUserScramCredentialsResponse;
import io.raftline.protocol.broker.DescribeAclsResponse;
import io.raftline.protocol.controller.CreateAclsRequest;
import io.raftline.protocol.controller.CreateAclsResponse;
import io.raftline.protocol.controller.DeleteAclsRequest;
import io.raftline.protocol.controller.DeleteAclsResponse;
import io.raftline.metadata.client.ControllerChannel;
import io.raftline.metadata.image.BrokerRegistration;
import io.raftline.metadata.image.ConfigResource;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerInfo;
import io.raftline.protocol.broker.DescribeConfigsRequest;
import io.raftline.protocol.broker.DescribeConfigsResponse;
import io.raftline.protocol.broker.DescribeLogsRequest;
import io.raftline.protocol.broker.DescribeLogsResponse;
import io.raftline.protocol.broker.InitProducerIdRequest;
import io.raftline.protocol.broker.InitProducerIdResponse;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The broker's whole gRPC service: the data plane of {@link DataPlaneRpc}, plus Metadata (answered from this
 * broker's metadata image), InitProducerId, DescribeConfigs, and the admin writes forwarded to the controller.
 */
public final class BrokerRpcService extends DataPlaneRpc {

    private final ControllerChannel controller;
    private final ProducerIdManager producerIds;
    private final Map<String, String> brokerConfig;
    private final boolean autoCreateTopics;
    private final ServedImage served;
    private final ServedImage applied;
    private final String clusterId;

    /** How long a read waits for this broker's image to reach the index a client asks for. */
    static final long READ_YOUR_WRITES_WAIT_MS = 5_000;

    public BrokerRpcService(ReplicaManager replicaManager, BrokerMetrics metrics, ControllerChannel controller,
                            ProducerIdManager producerIds, Map<String, String> brokerConfig, boolean autoCreateTopics,
                            ServedImage served, ServedImage applied, RequestLimits limits,
                            java.util.function.Predicate<String> replicaCallers, String clusterId,
                            RequestAuthorizer authorizer, io.raftline.broker.quota.ClientQuotas quotas,
                            io.raftline.broker.fetchsession.FetchSessionCache fetchSessions) {
        super(replicaManager, metrics, limits, replicaCallers, authorizer, quotas, fetchSessions);
        this.clusterId = clusterId;
        this.served = served;
        this.applied = applied;
        this.controller = controller;
        this.producerIds = producerIds;
        this.brokerConfig = brokerConfig;
        this.autoCreateTopics = autoCreateTopics;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Metadata

    /** Runs {@code answer} once this broker's served image has reached {@code minIndex} (or the wait gave up). */
    private void afterIndex(long minIndex, Runnable answer) {
        if (minIndex <= served.current().index()) {
            answer.run();
            return;
        }
        served.awaitIndex(minIndex).orTimeout(READ_YOUR_WRITES_WAIT_MS, TimeUnit.MILLISECONDS)
            .whenComplete((v, e) -> answer.run());
    }

    /**
     * Answers once this broker's replicas have applied the metadata up to the index the client asks for (or the wait
     * gave up): a log described right after its topic was created exists here, although the create call did not wait
     * for it (see {@link ServedImage}).
     */
    @Override
    public void describeLogs(DescribeLogsRequest request, StreamObserver<DescribeLogsResponse> responses) {
        long minIndex = request.getMinMetadataIndex();
        if (minIndex <= applied.current().index()) {
            super.describeLogs(request, responses);
            return;
        }
        applied.awaitIndex(minIndex).orTimeout(READ_YOUR_WRITES_WAIT_MS, TimeUnit.MILLISECONDS)
            .whenComplete((v, e) -> super.describeLogs(request, responses));
    }

    @Override
    public void metadata(MetadataRequest request, StreamObserver<MetadataResponse> responses) {
        RequestAuthorizer.Caller caller = RequestAuthorizer.Caller.current();
        afterIndex(request.getMinMetadataIndex(), () -> answerMetadata(request, responses, caller));
    }

    private void answerMetadata(MetadataRequest request, StreamObserver<MetadataResponse> responses,
                                RequestAuthorizer.Caller caller) {
        MetadataImage image = served.current();
        MetadataResponse.Builder out = MetadataResponse.newBuilder()
            .setClusterId(clusterId)
            .setControllerId(image.controllerId())
            .setMetadataIndex(image.index());
        for (BrokerRegistration broker : image.brokers().values()) {
            BrokerInfo.Builder b = BrokerInfo.newBuilder().setId(broker.id()).setFenced(broker.fenced())
                .setState(broker.state()).setEpoch(broker.epoch());
            broker.rackOpt().ifPresent(b::setRack);
            brokerEndpoint(broker).ifPresent(e -> b.setHost(e.getHost()).setPort(e.getPort()));
            out.addBrokers(b);
        }
        List<String> missing = new ArrayList<>();
        if (request.getTopicsCount() == 0 || request.getAllTopics()) {
            for (TopicImage topic : new TreeMap<>(image.topicIdsByName()).keySet().stream()
                .map(name -> image.topic(name).orElseThrow()).toList()) {
                // as Kafka: a listing holds only the topics the caller may describe
                if (authorizer.allowed(caller, Operation.DESCRIBE, ResourceType.TOPIC, topic.name())) {
                    out.addTopics(topicMetadata(image, topic));
                }
            }
        } else {
            for (String name : request.getTopicsList()) {
                TopicImage topic = image.topic(name).orElse(null);
                Error denied = authorizer.check(caller, Operation.DESCRIBE, ResourceType.TOPIC, name);
                if (denied != null) {
                    out.addTopics(TopicMetadata.newBuilder().setName(name).setError(denied));
                } else if (topic == null) {
                    missing.add(name);
                    boolean creating = autoCreateTopics && request.getAllowAutoTopicCreation();
                    out.addTopics(TopicMetadata.newBuilder().setName(name).setError(creating
                        ? error(ErrorCode.LEADER_NOT_AVAILABLE, "topic '" + name + "' is being created")
                        : error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "topic '" + name + "' does not exist")));
                } else {
                    out.addTopics(topicMetadata(image, topic));
                }
            }
        }
        missing.removeIf(name -> !authorizer.allowed(caller, Operation.CREATE, ResourceType.CLUSTER, Authorizer.CLUSTER_NAME)
            && !authorizer.allowed(caller, Operation.CREATE, ResourceType.TOPIC, name));
        if (!missing.isEmpty() && autoCreateTopics && request.getAllowAutoTopicCreation()) {
            CreateTopicsRequest.Builder create = CreateTopicsRequest.newBuilder();
            for (String name : missing) {
                create.addTopics(CreatableTopic.newBuilder().setName(name).setNumPartitions(-1).setReplicationFactor(-1));
            }
            controller.createTopics(create.build());
        }
        responses.onNext(out.build());
        responses.onCompleted();
    }

    private static TopicMetadata topicMetadata(MetadataImage image, TopicImage topic) {
        TopicMetadata.Builder t = TopicMetadata.newBuilder()
            .setName(topic.name())
            .setTopicId(bytes(topic.id().bytes()))
            .setInternal(topic.internal());
        for (Map.Entry<Integer, PartitionRegistration> e : new TreeMap<>(topic.partitions()).entrySet()) {
            PartitionRegistration p = e.getValue();
            PartitionMetadata.Builder pm = PartitionMetadata.newBuilder()
                .setPartition(e.getKey())
                .setLeader(p.leader())
                .setLeaderEpoch(p.leaderEpoch())
                .addAllReplicas(p.replicas())
                .addAllIsr(p.isr())
                .addAllAddingReplicas(p.addingReplicas())
                .addAllRemovingReplicas(p.removingReplicas());
            for (int replica : p.replicas()) {
                if (image.broker(replica).map(BrokerRegistration::fenced).orElse(true)) {
                    pm.addOfflineReplicas(replica);
                }
            }
            if (!p.hasLeader()) {
                pm.setError(error(ErrorCode.LEADER_NOT_AVAILABLE, "partition " + e.getKey() + " of '" + topic.name()
                    + "' has no leader"));
            }
            t.addPartitions(pm);
        }
        return t.build();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Producer ids and configs

    @Override
    public void initProducerId(InitProducerIdRequest request, StreamObserver<InitProducerIdResponse> responses) {
        if (!authorizer.mayProduceIdempotently()) {
            responses.onNext(InitProducerIdResponse.newBuilder().setProducerId(-1).setProducerEpoch(-1)
                .setError(RequestAuthorizer.denied(Operation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, Authorizer.CLUSTER_NAME))
                .build());
            responses.onCompleted();
            return;
        }
        producerIds.next().whenComplete((id, err) -> {
            InitProducerIdResponse.Builder b = InitProducerIdResponse.newBuilder();
            if (err != null) {
                b.setError(error(ErrorCode.COORDINATOR_NOT_AVAILABLE, "no producer id available: " + err.getMessage()))
                    .setProducerId(-1).setProducerEpoch(-1);
            } else {
                b.setProducerId(id).setProducerEpoch(0);
            }
            responses.onNext(b.build());
            responses.onCompleted();
        });
    }

    @Override
    public void describeConfigs(DescribeConfigsRequest request, StreamObserver<DescribeConfigsResponse> responses) {
        Error denied = request.getResourceType() == ConfigResourceType.TOPIC
            ? authorizer.check(Operation.DESCRIBE_CONFIGS, ResourceType.TOPIC, request.getResourceName())
            : authorizer.checkCluster(Operation.DESCRIBE_CONFIGS);
        if (denied != null) {
            refuse(DescribeConfigsResponse.getDefaultInstance(), denied, responses);
            return;
        }
        afterIndex(request.getMinMetadataIndex(), () -> answerDescribeConfigs(request, responses));
    }

    private void answerDescribeConfigs(DescribeConfigsRequest request, StreamObserver<DescribeConfigsResponse> responses) {
        DescribeConfigsResponse.Builder out = DescribeConfigsResponse.newBuilder();
        MetadataImage image = served.current();
        if (request.getResourceType() == ConfigResourceType.TOPIC) {
            if (image.topic(request.getResourceName()).isEmpty()) {
                out.setError(error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "topic '" + request.getResourceName()
                    + "' does not exist"));
            } else {
                Map<String, String> overrides = image.configs(ConfigResource.topic(request.getResourceName()));
                Map<String, String> defaults = LogConfig.topicDefaults(brokerConfig);
                for (Map.Entry<String, String> e : defaults.entrySet()) {
                    String name = e.getKey();
                    boolean overridden = overrides.containsKey(name);
                    String brokerKey = LogConfig.brokerKeyFor(name);
                    String source = overridden ? "topic" : (brokerKey != null && brokerConfig.containsKey(brokerKey)
                        ? "broker" : "default");
                    out.addConfigs(DescribeConfigsResponse.ConfigEntry.newBuilder().setName(name)
                        .setValue(overridden ? overrides.get(name) : e.getValue()).setSource(source).setReadOnly(false));
                }
            }
        } else if (request.getResourceType() == ConfigResourceType.USER
            || request.getResourceType() == ConfigResourceType.CLIENT) {
            // client quotas: only what is set on the entity itself
            image.configs(new ConfigResource(request.getResourceType(), request.getResourceName())).forEach((k, v) ->
                out.addConfigs(DescribeConfigsResponse.ConfigEntry.newBuilder().setName(k).setValue(v).setSource("dynamic")
                    .setReadOnly(false)));
        } else {
            // dynamic values (this broker's, else the cluster-wide default) over the file's, as Kafka lists them
            Map<String, String> own = image.configs(ConfigResource.broker(request.getResourceName()));
            Map<String, String> cluster = image.configs(ConfigResource.broker(""));
            TreeMap<String, String[]> entries = new TreeMap<>();
            brokerConfig.forEach((k, v) -> entries.put(k, new String[] {v, "broker"}));
            cluster.forEach((k, v) -> entries.put(k, new String[] {v, "dynamic-default"}));
            if (!request.getResourceName().isEmpty()) {
                own.forEach((k, v) -> entries.put(k, new String[] {v, "dynamic-broker"}));
            }
            entries.forEach((k, v) -> out.addConfigs(DescribeConfigsResponse.ConfigEntry.newBuilder().setName(k)
                .setValue(v[0]).setSource(v[1]).setReadOnly(v[1].equals("broker"))));
        }
        responses.onNext(out.build());
        responses.onCompleted();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Admin writes: forwarded to the controller

    @Override
    public void createTopics(CreateTopicsRequest request, StreamObserver<CreateTopicsResponse> responses) {
        Error denied = authorizer.allowed(Operation.CREATE, ResourceType.CLUSTER, Authorizer.CLUSTER_NAME) ? null
            : authorizer.checkAll(Operation.CREATE, ResourceType.TOPIC,
                request.getTopicsList().stream().map(CreatableTopic::getName).toList());
        forward(controller::createTopics, request, responses, denied,
            CreateTopicsResponse.getDefaultInstance());
    }

    @Override
    public void deleteTopics(DeleteTopicsRequest request, StreamObserver<DeleteTopicsResponse> responses) {
        forward(controller::deleteTopics, request, responses,
            authorizer.checkAll(Operation.DELETE, ResourceType.TOPIC, request.getNamesList()),
            DeleteTopicsResponse.getDefaultInstance());
    }

    @Override
    public void createPartitions(CreatePartitionsRequest request, StreamObserver<CreatePartitionsResponse> responses) {
        forward(controller::createPartitions, request, responses, authorizer.checkAll(Operation.ALTER, ResourceType.TOPIC,
            request.getTopicsList().stream().map(CreatePartitionsRequest.Topic::getName).toList()),
            CreatePartitionsResponse.getDefaultInstance());
    }

    @Override
    public void alterConfigs(AlterConfigsRequest request, StreamObserver<AlterConfigsResponse> responses) {
        Error denied = null;
        for (AlterConfigsRequest.Op op : request.getOpsList()) {
            denied = op.getResourceType() == ConfigResourceType.TOPIC
                ? authorizer.check(Operation.ALTER_CONFIGS, ResourceType.TOPIC, op.getResourceName())
                : authorizer.checkCluster(Operation.ALTER_CONFIGS);
            if (denied != null) {
                break;
            }
        }
        forward(controller::alterConfigs, request, responses, denied,
            AlterConfigsResponse.getDefaultInstance());
    }

    @Override
    public void electLeaders(ElectLeadersRequest request, StreamObserver<ElectLeadersResponse> responses) {
        forward(controller::electLeaders, request, responses, authorizer.checkCluster(Operation.ALTER),
            ElectLeadersResponse.getDefaultInstance());
    }

    @Override
    public void alterPartitionReassignments(AlterPartitionReassignmentsRequest request,
                                            StreamObserver<AlterPartitionReassignmentsResponse> responses) {
        forward(controller::alterPartitionReassignments, request, responses, authorizer.checkCluster(Operation.ALTER),
            AlterPartitionReassignmentsResponse.getDefaultInstance());
    }

    @Override
    public void describeQuorum(DescribeQuorumRequest request, StreamObserver<DescribeQuorumResponse> responses) {
        forward(controller::describeQuorum, request, responses, authorizer.checkCluster(Operation.DESCRIBE),
            DescribeQuorumResponse.getDefaultInstance());
    }

    @Override
    public void addVoter(AddVoterRequest request, StreamObserver<AddVoterResponse> responses) {
        forward(controller::addVoter, request, responses, authorizer.checkCluster(Operation.ALTER),
            AddVoterResponse.getDefaultInstance());
    }

    @Override
    public void removeVoter(RemoveVoterRequest request, StreamObserver<RemoveVoterResponse> responses) {
        forward(controller::removeVoter, request, responses, authorizer.checkCluster(Operation.ALTER),
            RemoveVoterResponse.getDefaultInstance());
    }

    // ---------------------------------------------------------------------------------------------------------
    // ACLs: changes forwarded to the controller, listings answered from this broker's image

    @Override
    public void createAcls(CreateAclsRequest request, StreamObserver<CreateAclsResponse> responses) {
        forward(controller::createAcls, request, responses, authorizer.checkCluster(Operation.ALTER),
            CreateAclsResponse.getDefaultInstance());
    }

    @Override
    public void deleteAcls(DeleteAclsRequest request, StreamObserver<DeleteAclsResponse> responses) {
        forward(controller::deleteAcls, request, responses, authorizer.checkCluster(Operation.ALTER),
            DeleteAclsResponse.getDefaultInstance());
    }

    @Override
    public void describeAcls(DescribeAclsRequest request, StreamObserver<DescribeAclsResponse> responses) {
        Error denied = authorizer.checkCluster(Operation.DESCRIBE);
        if (denied != null) {
            refuse(DescribeAclsResponse.getDefaultInstance(), denied, responses);
            return;
        }
        afterIndex(request.getMinMetadataIndex(), () -> {
            responses.onNext(DescribeAclsResponse.newBuilder()
                .addAllBindings(served.current().aclIndex().matching(request.getFilter())).build());
            responses.onCompleted();
        });
    }

    // ---------------------------------------------------------------------------------------------------------
    // SCRAM users: changes forwarded to the controller, listings from this broker's image; SASL steps on this connection

    @Override
    public void alterUserScramCredentials(AlterUserScramCredentialsRequest request,
                                          StreamObserver<AlterUserScramCredentialsResponse> responses) {
        forward(controller::alterUserScramCredentials, request, responses, authorizer.checkCluster(Operation.ALTER),
            AlterUserScramCredentialsResponse.getDefaultInstance());
    }

    @Override
    public void describeUserScramCredentials(DescribeUserScramCredentialsRequest request,
                                             StreamObserver<DescribeUserScramCredentialsResponse> responses) {
        Error denied = authorizer.checkCluster(Operation.DESCRIBE);
        if (denied != null) {
            refuse(DescribeUserScramCredentialsResponse.getDefaultInstance(), denied, responses);
            return;
        }
        afterIndex(request.getMinMetadataIndex(), () -> {
            java.util.Set<String> names = new java.util.HashSet<>(request.getNamesList());
            DescribeUserScramCredentialsResponse.Builder out = DescribeUserScramCredentialsResponse.newBuilder();
            served.current().scramUsers().all().forEach((name, byMechanism) -> {
                if (names.isEmpty() || names.contains(name)) {
                    byMechanism.forEach((mechanism, r) -> out.addCredentials(DescribeUserScramCredentialsResponse.Credential
                        .newBuilder().setName(name).setMechanism(mechanism).setIterations(r.getIterations())));
                }
            });
            responses.onNext(out.build());
            responses.onCompleted();
        });
    }

    @Override
    public void saslAuthenticate(SaslAuthenticateRequest request, StreamObserver<SaslAuthenticateResponse> responses) {
        responses.onNext(TransportSecurity.saslStep(request));
        responses.onCompleted();
    }

    /** {@link #forward(Function, Object, StreamObserver)} unless {@code denied} (not null): then refused here. */
    private <Q, R extends Message> void forward(Function<Q, CompletableFuture<R>> call, Q request, StreamObserver<R> responses,
                                                Error denied, R prototype) {
        if (denied != null) {
            refuse(prototype, denied, responses);
            return;
        }
        forward(call, request, responses);
    }

    /**
     * Sends an admin write to the controller and answers once this broker's served image holds the change, so the
     * client's next read from this broker sees it. The answer does not wait for this broker's replicas to apply the
     * change (e.g. a new topic's logs to be created): see {@link ServedImage}.
     */
    private <Q, R extends Message> void forward(Function<Q, CompletableFuture<R>> call, Q request, StreamObserver<R> responses) {
        call.apply(request).whenComplete((response, err) -> {
            if (err != null) {
                responses.onError(Status.UNAVAILABLE
                    .withDescription("the controller could not be reached: " + err.getMessage()).asRuntimeException());
                return;
            }
            Descriptors.FieldDescriptor field = response.getDescriptorForType().findFieldByName("metadata_index");
            long index = field == null ? 0 : (Long) response.getField(field);
            afterIndex(index, () -> {
                responses.onNext(response);
                responses.onCompleted();
            });
        });
    }
}
