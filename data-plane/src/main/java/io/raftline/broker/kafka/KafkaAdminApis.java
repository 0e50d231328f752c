package io.raftline.broker.kafka;

import io.raftline.broker.rpc.BrokerRpcService;
import io.raftline.broker.rpc.ServedImage;
import io.raftline.metadata.image.ConfigResource;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.TopicPartition;
import io.raftline.protocol.broker.DeleteRecordsRequest;
import io.raftline.protocol.broker.DeleteRecordsResponse;
import io.raftline.protocol.broker.DescribeLogsRequest;
import io.raftline.protocol.broker.DescribeLogsResponse;
import io.raftline.protocol.broker.OffsetsForLeaderEpochRequest;
import io.raftline.protocol.broker.OffsetsForLeaderEpochResponse;
import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.controller.CreatePartitionsRequest;
import io.raftline.protocol.controller.CreatePartitionsResponse;
import io.raftline.protocol.controller.ElectLeadersRequest;
import io.raftline.protocol.controller.ElectLeadersResponse;
import io.raftline.protocol.controller.ElectionType;
import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The Kafka listener's admin requests beyond topics: config changes, new partitions, record deletion, leader
 * elections and log directories, and the leader-epoch lookup consumers validate their position with. Each becomes the
 * broker's gRPC service call (controller forwarding, the replica manager), which also authorizes it with the
 * connection's principal; answers are translated back with {@link KafkaErrors}.
 */
final class KafkaAdminApis {

    private final BrokerRpcService service;
    private final ServedImage served;

    KafkaAdminApis(BrokerRpcService service, ServedImage served) {
        this.service = service;
        this.served = served;
    }

    private static <T> CompletableFuture<List<T>> all(List<CompletableFuture<T>> futures) {
        return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
            .thenApply(v -> futures.stream().map(CompletableFuture::join).toList());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Configs: one controller call per resource, since Kafka answers each resource on its own

    /** One resource's outcome: a Kafka error code and message. */
    private record Outcome(byte type, String name, short error, String message) {
    }

    private CompletableFuture<Outcome> alter(byte type, String name, boolean validateOnly, Ops ops) {
        List<AlterConfigsRequest.Op> translated;
        try {
            translated = ops.build();
        } catch (KafkaRefusal r) {
            return CompletableFuture.completedFuture(new Outcome(type, name, Errors.INVALID_REQUEST.code(), r.getMessage()));
        }
        AlterConfigsRequest ours = AlterConfigsRequest.newBuilder().addAllOps(translated).setValidateOnly(validateOnly).build();
        return Unary.call(service::alterConfigs, ours)
            .thenApply(r -> new Outcome(type, name, KafkaApis.code(r.getError()), KafkaApis.message(r.getError())));
    }

    @FunctionalInterface
    private interface Ops {
        List<AlterConfigsRequest.Op> build() throws KafkaRefusal;
    }

    private static List<KafkaConfigOps.Change> changes(java.util.Collection<IncrementalAlterConfigsRequestData.AlterableConfig> configs) {
        return configs.stream().map(c -> new KafkaConfigOps.Change(c.name(), c.configOperation(), c.value())).toList();
    }

    CompletableFuture<ApiMessage> incrementalAlterConfigs(KafkaRequest request) {
        IncrementalAlterConfigsRequestData req = (IncrementalAlterConfigsRequestData) request.body().data();
        List<CompletableFuture<Outcome>> outcomes = new ArrayList<>();
        for (IncrementalAlterConfigsRequestData.AlterConfigsResource r : req.resources()) {
            outcomes.add(alter(r.resourceType(), r.resourceName(), req.validateOnly(),
                () -> KafkaConfigOps.incremental(r.resourceType(), r.resourceName(), changes(r.configs()))));
        }
        return all(outcomes).thenApply(list -> {
            IncrementalAlterConfigsResponseData out = new IncrementalAlterConfigsResponseData();
            list.forEach(o -> out.responses().add(new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                .setResourceType(o.type()).setResourceName(o.name()).setErrorCode(o.error()).setErrorMessage(o.message())));
            return out;
        });
    }

    CompletableFuture<ApiMessage> alterConfigs(KafkaRequest request) {
        AlterConfigsRequestData req = (AlterConfigsRequestData) request.body().data();
        List<CompletableFuture<Outcome>> outcomes = new ArrayList<>();
        for (AlterConfigsRequestData.AlterConfigsResource r : req.resources()) {
            List<KafkaConfigOps.Change> wanted = r.configs().stream()
                .map(c -> new KafkaConfigOps.Change(c.name(), KafkaConfigOps.SET, c.value())).toList();
            outcomes.add(alter(r.resourceType(), r.resourceName(), req.validateOnly(), () -> KafkaConfigOps.replaceAll(
                r.resourceType(), r.resourceName(), wanted, served.current().configs(
                    new ConfigResource(KafkaConfigOps.resourceType(r.resourceType()), r.resourceName())))));
        }
        return all(outcomes).thenApply(list -> {
            AlterConfigsResponseData out = new AlterConfigsResponseData();
            list.forEach(o -> out.responses().add(new AlterConfigsResponseData.AlterConfigsResourceResponse()
                .setResourceType(o.type()).setResourceName(o.name()).setErrorCode(o.error()).setErrorMessage(o.message())));
            return out;
        });
    }

    // ---------------------------------------------------------------------------------------------------------
    // CreatePartitions: forwarded to the controller, which places the new replicas

    CompletableFuture<ApiMessage> createPartitions(KafkaRequest request) {
        CreatePartitionsRequestData req = (CreatePartitionsRequestData) request.body().data();
        CreatePartitionsResponseData out = new CreatePartitionsResponseData();
        CreatePartitionsRequest.Builder ours = CreatePartitionsRequest.newBuilder().setValidateOnly(req.validateOnly());
        for (CreatePartitionsRequestData.CreatePartitionsTopic t : req.topics()) {
            if (t.assignments() != null) {
                // the controller places new replicas itself; refusing keeps "the replicas you named" honest
                out.results().add(new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(t.name())
                    .setErrorCode(Errors.INVALID_REPLICA_ASSIGNMENT.code())
                    .setErrorMessage("replica assignments for new partitions are not served: the controller places them"));
            } else {
                ours.addTopics(CreatePartitionsRequest.Topic.newBuilder().setName(t.name()).setCount(t.count()));
            }
        }
        if (ours.getTopicsCount() == 0) {
            return CompletableFuture.completedFuture(out);
        }
        return Unary.call(service::createPartitions, ours.build()).thenApply(r -> {
            if (r.getError().getCode() != ErrorCode.NONE) {
                ours.getTopicsList().forEach(t -> out.results().add(topicResult(t.getName(), r.getError())));
            } else {
                for (CreatePartitionsResponse.Result t : r.getTopicsList()) {
                    out.results().add(topicResult(t.getName(), t.getError()));
                }
            }
            return out;
        });
    }

    private static CreatePartitionsResponseData.CreatePartitionsTopicResult topicResult(String name, Error error) {
        return new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(name)
            .setErrorCode(KafkaApis.code(error)).setErrorMessage(KafkaApis.message(error));
    }

    // ---------------------------------------------------------------------------------------------------------
    // DeleteRecords: each partition's leader moves its log start offset (clients send each partition to its leader)

    CompletableFuture<ApiMessage> deleteRecords(KafkaRequest request) {
        DeleteRecordsRequestData req = (DeleteRecordsRequestData) request.body().data();
        DeleteRecordsRequest.Builder ours = DeleteRecordsRequest.newBuilder().setTimeoutMs(Math.max(1, req.timeoutMs()));
        for (DeleteRecordsRequestData.DeleteRecordsTopic t : req.topics()) {
            for (DeleteRecordsRequestData.DeleteRecordsPartition p : t.partitions()) {
                ours.addPartitions(DeleteRecordsRequest.PartitionOffset.newBuilder().setTopic(t.name())
                    .setPartition(p.partitionIndex()).setOffset(p.offset()));
            }
        }
        return Unary.call(service::deleteRecords, ours.build()).thenApply(r -> {
            DeleteRecordsResponseData out = new DeleteRecordsResponseData();
            for (DeleteRecordsResponse.PartitionResult p : r.getPartitionsList()) {
                DeleteRecordsResponseData.DeleteRecordsTopicResult topic = out.topics().find(p.getTopic());
                if (topic == null) {
                    topic = new DeleteRecordsResponseData.DeleteRecordsTopicResult().setName(p.getTopic());
                    out.topics().add(topic);
                }
                topic.partitions().add(new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                    .setPartitionIndex(p.getPartition()).setLowWatermark(p.getLowWatermark())
                    .setErrorCode(KafkaApis.code(p.getError())));
            }
            return out;
        });
    }

    // ---------------------------------------------------------------------------------------------------------
    // OffsetForLeaderEpoch: where an epoch ends on the leader (consumers validate their position after a leader change)

    CompletableFuture<ApiMessage> offsetForLeaderEpoch(KafkaRequest request) {
        OffsetForLeaderEpochRequestData req = (OffsetForLeaderEpochRequestData) request.body().data();
        // v2 has no replica id (consumers only), and v3+ consumers send -1: both ask as a client
        OffsetsForLeaderEpochRequest.Builder ours = OffsetsForLeaderEpochRequest.newBuilder()
            .setReplicaId(request.version() >= 3 && req.replicaId() >= 0 ? req.replicaId() : -1);
        for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t : req.topics()) {
            for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition p : t.partitions()) {
                ours.addPartitions(OffsetsForLeaderEpochRequest.PartitionEpoch.newBuilder().setTopic(t.topic())
                    .setPartition(p.partition()).setCurrentLeaderEpoch(p.currentLeaderEpoch())
                    .setLeaderEpoch(p.leaderEpoch()));
            }
        }
        return Unary.call(service::offsetsForLeaderEpoch, ours.build()).thenApply(r -> {
            OffsetForLeaderEpochResponseData out = new OffsetForLeaderEpochResponseData();
            for (OffsetsForLeaderEpochResponse.PartitionResult p : r.getPartitionsList()) {
                OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult topic = out.topics().find(p.getTopic());
                if (topic == null) {
                    topic = new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(p.getTopic());
                    out.topics().add(topic);
                }
                topic.partitions().add(new OffsetForLeaderEpochResponseData.EpochEndOffset()
                    .setPartition(p.getPartition()).setErrorCode(KafkaApis.code(p.getError()))
                    .setLeaderEpoch(p.getLeaderEpoch()).setEndOffset(p.getEndOffset()));
            }
            return out;
        });
    }

    // ---------------------------------------------------------------------------------------------------------
    // DescribeLogDirs: this broker's replicas, grouped by the log.dirs entry that holds them

    CompletableFuture<ApiMessage> describeLogDirs(KafkaRequest request) {
        DescribeLogDirsRequestData req = (DescribeLogDirsRequestData) request.body().data();
        DescribeLogsRequest.Builder ours = DescribeLogsRequest.newBuilder();
        boolean everything = req.topics() == null;
        if (!everything) {
            for (DescribeLogDirsRequestData.DescribableLogDirTopic t : req.topics()) {
                t.partitions().forEach(p -> ours.addPartitions(TopicPartition.newBuilder().setTopic(t.topic()).setPartition(p)));
            }
            if (ours.getPartitionsCount() == 0) {
                return CompletableFuture.completedFuture(new DescribeLogDirsResponseData());
            }
        }
        return Unary.call(service::describeLogs, ours.build()).thenApply(r -> describeLogDirsResponse(r, request.version()));
    }

    static ApiMessage describeLogDirsResponse(DescribeLogsResponse r, short version) {
        DescribeLogDirsResponseData out = new DescribeLogDirsResponseData();
        if (r.getError().getCode() != ErrorCode.NONE) {
            // v3+ carry the whole request's error; before, Kafka answers with no directories
            return out.setErrorCode(version >= 3 ? KafkaApis.code(r.getError()) : Errors.NONE.code());
        }
        Map<String, DescribeLogDirsResponseData.DescribeLogDirsResult> byDir = new LinkedHashMap<>();
        Map<List<String>, DescribeLogDirsResponseData.DescribeLogDirsTopic> byDirAndTopic = new HashMap<>();
        for (DescribeLogsResponse.ReplicaLog log : r.getReplicasList()) {
            if (log.getError().getCode() != ErrorCode.NONE || log.getLogDir().isEmpty()) {
                continue; // a replica this broker does not hold is in no directory (as Kafka leaves it out)
            }
            DescribeLogDirsResponseData.DescribeLogDirsResult dir = byDir.computeIfAbsent(log.getLogDir(), d -> {
                File f = new File(d);
                return new DescribeLogDirsResponseData.DescribeLogDirsResult().setLogDir(d)
                    .setErrorCode(Errors.NONE.code()).setTotalBytes(f.getTotalSpace()).setUsableBytes(f.getUsableSpace());
            });
            DescribeLogDirsResponseData.DescribeLogDirsTopic topic = byDirAndTopic.computeIfAbsent(
                List.of(log.getLogDir(), log.getTopic()), k -> {
                    DescribeLogDirsResponseData.DescribeLogDirsTopic t =
                        new DescribeLogDirsResponseData.DescribeLogDirsTopic().setName(log.getTopic());
                    dir.topics().add(t);
                    return t;
                });
            topic.partitions().add(new DescribeLogDirsResponseData.DescribeLogDirsPartition()
                .setPartitionIndex(log.getPartition()).setPartitionSize(log.getSizeBytes())
                .setOffsetLag(Math.max(0, log.getHighWatermark() - log.getLogEndOffset())).setIsFutureKey(false));
        }
        out.results().addAll(byDir.values());
        return out;
    }

    // ---------------------------------------------------------------------------------------------------------
    // ElectLeaders: forwarded to the controller

    CompletableFuture<ApiMessage> electLeaders(KafkaRequest request) {
        ElectLeadersRequestData req = (ElectLeadersRequestData) request.body().data();
        byte type = request.version() >= 1 ? req.electionType() : 0;
        if (type != 0 && type != 1) {
            return CompletableFuture.completedFuture(request.body().getErrorResponse(0,
                Errors.INVALID_REQUEST.exception("unknown election type " + type + ": 0 (preferred) or 1 (unclean)")).data());
        }
        ElectLeadersRequest.Builder ours = ElectLeadersRequest.newBuilder()
            .setType(type == 0 ? ElectionType.PREFERRED : ElectionType.UNCLEAN);
        if (req.topicPartitions() != null) {
            for (ElectLeadersRequestData.TopicPartitions t : req.topicPartitions()) {
                t.partitions().forEach(p -> ours.addPartitions(TopicPartition.newBuilder().setTopic(t.topic()).setPartition(p)));
            }
            if (ours.getPartitionsCount() == 0) {
                // Kafka: an empty list elects nothing (null is every partition)
                return CompletableFuture.completedFuture(new ElectLeadersResponseData());
            }
        }
        return Unary.call(service::electLeaders, ours.build()).thenApply(r -> {
            if (r.getError().getCode() != ErrorCode.NONE) {
                return request.body().getErrorResponse(0,
                    KafkaErrors.of(r.getError().getCode()).exception(KafkaApis.message(r.getError()))).data();
            }
            ElectLeadersResponseData out = new ElectLeadersResponseData().setErrorCode(Errors.NONE.code());
            for (ElectLeadersResponse.Result p : r.getPartitionsList()) {
                ElectLeadersResponseData.ReplicaElectionResult topic = out.replicaElectionResults().stream()
                    .filter(t -> t.topic().equals(p.getPartition().getTopic())).findFirst().orElse(null);
                if (topic == null) {
                    topic = new ElectLeadersResponseData.ReplicaElectionResult().setTopic(p.getPartition().getTopic());
                    out.replicaElectionResults().add(topic);
                }
                topic.partitionResult().add(new ElectLeadersResponseData.PartitionResult()
                    .setPartitionId(p.getPartition().getPartition()).setErrorCode(KafkaApis.code(p.getError()))
                    .setErrorMessage(KafkaApis.message(p.getError())));
            }
            return out;
        });
    }
}
