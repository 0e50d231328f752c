package io.raftline.broker.kafka;

import io.raftline.broker.rpc.BrokerRpcService;
import io.raftline.broker.security.RequestAuthorizer;
import io.raftline.grpc.TransportSecurity;
import io.raftline.broker.rpc.ServedImage;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.BrokerRegistration;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.DescribeConfigsRequest;
import io.raftline.protocol.broker.DescribeConfigsResponse;
import io.raftline.protocol.broker.InitProducerIdRequest;
import io.raftline.protocol.broker.MetadataRequest;
import io.raftline.protocol.broker.PartitionMetadata;
import io.raftline.protocol.broker.TopicMetadata;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.protocol.controller.DeleteTopicsRequest;
import io.raftline.protocol.controller.DeleteTopicsResponse;
import io.raftline.protocol.metadata.ConfigResourceType;
import io.raftline.protocol.metadata.Endpoint;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the Kafka listener answers, request by request: each Kafka request becomes the call the gRPC listener makes
 * (the same {@link BrokerRpcService} methods, the replica manager, the controller forwarding), and the answer is
 * translated back. Nothing here blocks; every answer is a future. Data-plane requests are in {@link KafkaDataApis}.
 */
public final class KafkaApis implements KafkaHandler {

    /** The name of a broker's Kafka endpoint in its registration. */
    public static final String ENDPOINT = "kafka";

    private final BrokerRpcService service;
    private final ServedImage served;
    private final String clusterId;
    private final KafkaDataApis data;
    private final KafkaGroupApis groups;
    private final KafkaAuthorization authorization;
    private final KafkaAdminApis admin;
    private final KafkaSecurityApis security;
    private final KafkaPartitionApis partitions;

    public KafkaApis(BrokerRpcService service, ServedImage served, String clusterId, KafkaDataApis data,
                     KafkaGroupApis groups, RequestAuthorizer authorizer) {
        this.authorization = new KafkaAuthorization(authorizer);
        this.service = service;
        this.served = served;
        this.clusterId = clusterId;
        this.data = data;
        this.groups = groups;
        this.admin = new KafkaAdminApis(service, served);
        this.security = new KafkaSecurityApis(service, served);
        this.partitions = new KafkaPartitionApis(service, served);
    }

    /** The answer to {@code request}; a null answer means none is sent (a produce with acks=0). */
    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        // The principal of the connection: its SASL session's user, its client certificate's, or User:ANONYMOUS.
        String host = request.clientHost().startsWith("/") ? request.clientHost().substring(1) : request.clientHost();
        RequestAuthorizer.Caller caller = new RequestAuthorizer.Caller(request.principal(), host);
        ApiMessage refused = authorization.refusal(request, caller);
        if (refused != null) {
            boolean silent = request.apiKey() == org.apache.kafka.common.protocol.ApiKeys.PRODUCE
                && ((org.apache.kafka.common.message.ProduceRequestData) request.body().data()).acks() == 0;
            return CompletableFuture.completedFuture(silent ? null : refused);
        }
        return TransportSecurity.callAs(caller.principal(), caller.host(), () -> dispatch(request));
    }

    private CompletableFuture<ApiMessage> dispatch(KafkaRequest request) {
        ApiMessage body = request.body().data();
        return switch (request.apiKey()) {
            case API_VERSIONS -> CompletableFuture.completedFuture(apiVersions());
            case METADATA -> metadata((MetadataRequestData) body, request.version());
            case PRODUCE -> data.produce(request);
            case FETCH -> data.fetch(request);
            case LIST_OFFSETS -> data.listOffsets(request);
            case INIT_PRODUCER_ID -> initProducerId((InitProducerIdRequestData) body);
            case CREATE_TOPICS -> createTopics((CreateTopicsRequestData) body);
            case DELETE_TOPICS -> deleteTopics((DeleteTopicsRequestData) body);
            case DESCRIBE_CLUSTER -> CompletableFuture.completedFuture(describeCluster((DescribeClusterRequestData) body,
                request.version()));
            case DESCRIBE_CONFIGS -> describeConfigs((DescribeConfigsRequestData) body);
            case INCREMENTAL_ALTER_CONFIGS -> admin.incrementalAlterConfigs(request);
            case ALTER_CONFIGS -> admin.alterConfigs(request);
            case CREATE_PARTITIONS -> admin.createPartitions(request);
            case DELETE_RECORDS -> admin.deleteRecords(request);
            case OFFSET_FOR_LEADER_EPOCH -> admin.offsetForLeaderEpoch(request);
            case DESCRIBE_LOG_DIRS -> admin.describeLogDirs(request);
            case ELECT_LEADERS -> admin.electLeaders(request);
            case DESCRIBE_ACLS -> security.describeAcls(request);
            case CREATE_ACLS -> security.createAcls(request);
            case DELETE_ACLS -> security.deleteAcls(request);
            case DESCRIBE_USER_SCRAM_CREDENTIALS -> security.describeUserScramCredentials(request);
            case ALTER_USER_SCRAM_CREDENTIALS -> security.alterUserScramCredentials(request);
            case DESCRIBE_CLIENT_QUOTAS -> security.describeClientQuotas(request);
            case ALTER_CLIENT_QUOTAS -> security.alterClientQuotas(request);
            case DESCRIBE_TOPIC_PARTITIONS -> partitions.describeTopicPartitions(request);
            case ALTER_PARTITION_REASSIGNMENTS -> partitions.alterPartitionReassignments(request);
            case LIST_PARTITION_REASSIGNMENTS -> partitions.listPartitionReassignments(request);
            case FIND_COORDINATOR -> groups.findCoordinator(request);
            case JOIN_GROUP -> groups.joinGroup(request);
            case SYNC_GROUP -> groups.syncGroup(request);
            case HEARTBEAT -> groups.heartbeat(request);
            case LEAVE_GROUP -> groups.leaveGroup(request);
            case OFFSET_COMMIT -> groups.offsetCommit(request);
            case OFFSET_FETCH -> groups.offsetFetch(request);
            case LIST_GROUPS -> groups.listGroups(request);
            case DESCRIBE_GROUPS -> groups.describeGroups(request);
            case DELETE_GROUPS -> groups.deleteGroups(request);
            case OFFSET_DELETE -> groups.offsetDelete(request);
            case DESCRIBE_PRODUCERS -> data.describeProducers(request);
            default -> throw new IllegalStateException("no handler for " + request.apiKey() + " (SupportedApis lists it)");
        };
    }

    static ApiVersionsResponseData apiVersions() {
        return new ApiVersionsResponseData().setErrorCode(Errors.NONE.code()).setApiKeys(SupportedApis.advertised());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Metadata

    private CompletableFuture<ApiMessage> metadata(MetadataRequestData request, short version) {
        // v0: an empty list asks for every topic; v1+: null asks for every topic, an empty list for none.
        boolean all = request.topics() == null || (version == 0 && request.topics().isEmpty());
        List<String> names = new ArrayList<>();
        if (!all) {
            for (MetadataRequestData.MetadataRequestTopic t : request.topics()) {
                if (t.name() != null) {
                    names.add(t.name());
                }
            }
        }
        if (!all && names.isEmpty()) {
            return CompletableFuture.completedFuture(metadataResponse(served.current(), List.of()));
        }
        MetadataRequest ours = MetadataRequest.newBuilder().setAllTopics(all).addAllTopics(names)
            .setAllowAutoTopicCreation(version < 4 || request.allowAutoTopicCreation()).build();
        return Unary.call(service::metadata, ours)
            .thenApply(r -> metadataResponse(served.current(), r.getTopicsList()));
    }

    private MetadataResponseData metadataResponse(MetadataImage image, List<TopicMetadata> topics) {
        MetadataResponseData out = new MetadataResponseData().setClusterId(clusterId)
            .setControllerId(image.controllerId());
        for (BrokerRegistration broker : image.brokers().values()) {
            Optional<Endpoint> endpoint = broker.endpoint(ENDPOINT);
            if (broker.fenced() || endpoint.isEmpty()) {
                continue;
            }
            out.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(broker.id())
                .setHost(endpoint.get().getHost()).setPort(endpoint.get().getPort()).setRack(broker.rackOpt().orElse(null)));
        }
        for (TopicMetadata t : topics) {
            MetadataResponseData.MetadataResponseTopic topic = new MetadataResponseData.MetadataResponseTopic()
                .setName(t.getName()).setErrorCode(code(t.getError())).setIsInternal(t.getInternal());
            if (!t.getTopicId().isEmpty()) {
                topic.setTopicId(kafkaUuid(Uuid.fromBytes(t.getTopicId().toByteArray())));
            }
            for (PartitionMetadata p : t.getPartitionsList()) {
                topic.partitions().add(new MetadataResponseData.MetadataResponsePartition()
                    .setPartitionIndex(p.getPartition()).setErrorCode(code(p.getError()))
                    .setLeaderId(p.getLeader()).setLeaderEpoch(p.getLeaderEpoch())
                    .setReplicaNodes(p.getReplicasList()).setIsrNodes(p.getIsrList())
                    .setOfflineReplicas(p.getOfflineReplicasList()));
            }
            out.topics().add(topic);
        }
        return out;
    }

    private DescribeClusterResponseData describeCluster(DescribeClusterRequestData request, short version) {
        MetadataImage image = served.current();
        DescribeClusterResponseData out = new DescribeClusterResponseData().setClusterId(clusterId)
            .setControllerId(image.controllerId());
        boolean withFenced = version >= 2 && request.includeFencedBrokers();
        for (BrokerRegistration broker : image.brokers().values()) {
            Optional<Endpoint> endpoint = broker.endpoint(ENDPOINT);
            if (endpoint.isEmpty() || (broker.fenced() && !withFenced)) {
                continue;
            }
            DescribeClusterResponseData.DescribeClusterBroker b = new DescribeClusterResponseData.DescribeClusterBroker()
                .setBrokerId(broker.id()).setHost(endpoint.get().getHost()).setPort(endpoint.get().getPort())
                .setRack(broker.rackOpt().orElse(null));
            if (version >= 2) {
                b.setIsFenced(broker.fenced());
            }
            out.brokers().add(b);
        }
        return out;
    }

    /** Kafka's config source for each of DescribeConfigs' sources. */
    static byte configSource(String source) {
        return switch (source) {
            case "topic" -> (byte) 1;
            case "dynamic-broker" -> (byte) 2;
            case "dynamic-default" -> (byte) 3;
            case "broker" -> (byte) 4;
            case "default" -> (byte) 5;
            default -> (byte) 0;
        };
    }

    private CompletableFuture<ApiMessage> describeConfigs(DescribeConfigsRequestData request) {
        List<CompletableFuture<DescribeConfigsResponseData.DescribeConfigsResult>> results = new ArrayList<>();
        for (DescribeConfigsRequestData.DescribeConfigsResource r : request.resources()) {
            DescribeConfigsResponseData.DescribeConfigsResult result = new DescribeConfigsResponseData.DescribeConfigsResult()
                .setResourceType(r.resourceType()).setResourceName(r.resourceName());
            ConfigResourceType type = r.resourceType() == 2 ? ConfigResourceType.TOPIC
                : r.resourceType() == 4 ? ConfigResourceType.BROKER : null;
            if (type == null) {
                results.add(CompletableFuture.completedFuture(result.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("only topic and broker configs are served")));
                continue;
            }
            DescribeConfigsRequest ours = DescribeConfigsRequest.newBuilder().setResourceType(type)
                .setResourceName(r.resourceName()).build();
            java.util.Set<String> keys = r.configurationKeys() == null ? null : new java.util.HashSet<>(r.configurationKeys());
            results.add(Unary.call(service::describeConfigs, ours).thenApply(d -> {
                result.setErrorCode(code(d.getError())).setErrorMessage(message(d.getError()));
                for (DescribeConfigsResponse.ConfigEntry e : d.getConfigsList()) {
                    if (keys == null || keys.contains(e.getName())) {
                        result.configs().add(new DescribeConfigsResponseData.DescribeConfigsResourceResult()
                            .setName(e.getName()).setValue(e.getValue()).setReadOnly(e.getReadOnly())
                            .setConfigSource(configSource(e.getSource())).setIsSensitive(false));
                    }
                }
                return result;
            }));
        }
        return CompletableFuture.allOf(results.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            DescribeConfigsResponseData out = new DescribeConfigsResponseData();
            results.forEach(f -> out.results().add(f.join()));
            return out;
        });
    }

    static org.apache.kafka.common.Uuid kafkaUuid(Uuid id) {
        ByteBuffer b = ByteBuffer.wrap(id.bytes());
        return new org.apache.kafka.common.Uuid(b.getLong(), b.getLong());
    }

    static short code(Error error) {
        return KafkaErrors.code(error.getCode());
    }

    static String message(Error error) {
        return error.getCode() == ErrorCode.NONE || error.getMessage().isEmpty() ? null : error.getMessage();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Producer ids

    private CompletableFuture<ApiMessage> initProducerId(InitProducerIdRequestData request) {
        if (request.transactionalId() != null) {
            // Transactions are not served: a clear, non-retriable answer instead of a hang.
            return CompletableFuture.completedFuture(new InitProducerIdResponseData()
                .setErrorCode(Errors.UNSUPPORTED_VERSION.code()).setProducerId(-1).setProducerEpoch((short) -1));
        }
        InitProducerIdRequest ours = InitProducerIdRequest.newBuilder()
            .setTransactionTimeoutMs(request.transactionTimeoutMs()).setProducerId(-1).setProducerEpoch(-1).build();
        return Unary.call(service::initProducerId, ours).thenApply(r -> new InitProducerIdResponseData()
            .setErrorCode(code(r.getError())).setProducerId(r.getProducerId()).setProducerEpoch((short) r.getProducerEpoch()));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Topics: forwarded to the controller

    private CompletableFuture<ApiMessage> createTopics(CreateTopicsRequestData request) {
        CreateTopicsRequest.Builder ours = CreateTopicsRequest.newBuilder().setValidateOnly(request.validateOnly());
        for (CreateTopicsRequestData.CreatableTopic t : request.topics()) {
            CreatableTopic.Builder b = CreatableTopic.newBuilder().setName(t.name())
                .setNumPartitions(t.numPartitions()).setReplicationFactor(t.replicationFactor());
            for (CreateTopicsRequestData.CreatableReplicaAssignment a : t.assignments()) {
                b.addAssignments(CreatableTopic.Assignment.newBuilder().setPartition(a.partitionIndex())
                    .addAllReplicas(a.brokerIds()));
            }
            for (CreateTopicsRequestData.CreatableTopicConfig c : t.configs()) {
                b.putConfigs(c.name(), c.value() == null ? "" : c.value());
            }
            ours.addTopics(b);
        }
        return Unary.call(service::createTopics, ours.build()).thenApply(r -> createTopicsResponse(request, r));
    }

    private static CreateTopicsResponseData createTopicsResponse(CreateTopicsRequestData request, CreateTopicsResponse r) {
        CreateTopicsResponseData out = new CreateTopicsResponseData();
        if (r.getError().getCode() != ErrorCode.NONE) {
            for (CreateTopicsRequestData.CreatableTopic t : request.topics()) {
                out.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName(t.name())
                    .setErrorCode(code(r.getError())).setErrorMessage(message(r.getError())).setConfigs(new ArrayList<>()));
            }
            return out;
        }
        for (CreateTopicsResponse.Result t : r.getTopicsList()) {
            CreateTopicsResponseData.CreatableTopicResult result = new CreateTopicsResponseData.CreatableTopicResult()
                .setName(t.getName()).setErrorCode(code(t.getError())).setErrorMessage(message(t.getError()))
                .setNumPartitions(t.getNumPartitions()).setReplicationFactor((short) t.getReplicationFactor())
                .setConfigs(new ArrayList<>());
            if (!t.getTopicId().isEmpty()) {
                result.setTopicId(kafkaUuid(Uuid.fromBytes(t.getTopicId().toByteArray())));
            }
            out.topics().add(result);
        }
        return out;
    }

    private CompletableFuture<ApiMessage> deleteTopics(DeleteTopicsRequestData request) {
        List<String> names = new ArrayList<>(request.topicNames());
        DeleteTopicsRequest ours = DeleteTopicsRequest.newBuilder().addAllNames(names).build();
        return Unary.call(service::deleteTopics, ours).thenApply(r -> {
            DeleteTopicsResponseData out = new DeleteTopicsResponseData();
            if (r.getError().getCode() != ErrorCode.NONE) {
                for (String name : names) {
                    out.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setName(name)
                        .setErrorCode(code(r.getError())).setErrorMessage(message(r.getError())));
                }
                return out;
            }
            for (DeleteTopicsResponse.Result t : r.getTopicsList()) {
                out.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setName(t.getName())
                    .setErrorCode(code(t.getError())).setErrorMessage(message(t.getError())));
            }
            return out;
        });
    }
}
