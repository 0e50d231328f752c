package io.raftline.broker.kafka;

import com.google.protobuf.ByteString;
import io.raftline.broker.group.GroupCoordinator;
import io.raftline.broker.rpc.ServedImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.group.DescribeGroupsRequest;
import io.raftline.protocol.group.DescribeGroupsResponse;
import io.raftline.protocol.group.DeleteGroupsRequest;
import io.raftline.protocol.group.DeleteGroupsResponse;
import io.raftline.protocol.group.FindCoordinatorRequest;
import io.raftline.protocol.group.FindCoordinatorResponse;
import io.raftline.protocol.group.HeartbeatRequest;
import io.raftline.protocol.group.JoinGroupRequest;
import io.raftline.protocol.group.JoinGroupResponse;
import io.raftline.protocol.group.LeaveGroupRequest;
import io.raftline.protocol.group.LeaveGroupResponse;
import io.raftline.protocol.group.ListGroupsRequest;
import io.raftline.protocol.group.ListGroupsResponse;
import io.raftline.protocol.group.OffsetCommitRequest;
import io.raftline.protocol.group.OffsetCommitResponse;
import io.raftline.protocol.group.OffsetDeleteRequest;
import io.raftline.protocol.group.OffsetDeleteResponse;
import io.raftline.protocol.group.OffsetFetchRequest;
import io.raftline.protocol.group.OffsetFetchResponse;
import io.raftline.protocol.group.SyncGroupRequest;
import io.raftline.protocol.metadata.Endpoint;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The classic group protocol of the Kafka listener over the broker's {@link GroupCoordinator}, the one the gRPC
 * listener uses: Kafka clients' groups live beside the SDK's on the same coordinator, with the same offsets. Kafka's
 * own assignors (range, cooperative-sticky, …) run in the clients as they do against Apache Kafka; a consumer group's
 * subscriptions and assignments are stored in Raftline's encoding ({@link ConsumerProtocolTranslation}), so Kafka
 * consumers and SDK consumers can share one group.
 */
public final class KafkaGroupApis {

    private final GroupCoordinator coordinator;
    private final ServedImage served;

    public KafkaGroupApis(GroupCoordinator coordinator, ServedImage served) {
        this.coordinator = coordinator;
        this.served = served;
    }

    private static CompletableFuture<ApiMessage> now(ApiMessage m) {
        return CompletableFuture.completedFuture(m);
    }

    // ---------------------------------------------------------------------------------------------------------
    // FindCoordinator

    CompletableFuture<ApiMessage> findCoordinator(KafkaRequest request) {
        FindCoordinatorRequestData req = (FindCoordinatorRequestData) request.body().data();
        FindCoordinatorResponseData out = new FindCoordinatorResponseData();
        if (request.version() >= 4) {
            for (String key : req.coordinatorKeys()) {
                Coordinator c = locate(key, req.keyType());
                out.coordinators().add(new FindCoordinatorResponseData.Coordinator().setKey(key).setNodeId(c.nodeId)
                    .setHost(c.host).setPort(c.port).setErrorCode(c.error.code()).setErrorMessage(c.message));
            }
            return now(out);
        }
        Coordinator c = locate(req.key(), req.keyType());
        return now(out.setNodeId(c.nodeId).setHost(c.host).setPort(c.port).setErrorCode(c.error.code())
            .setErrorMessage(c.message));
    }

    private record Coordinator(Errors error, String message, int nodeId, String host, int port) {
        static Coordinator failed(Errors error, String message) {
            return new Coordinator(error, message, -1, "", -1);
        }
    }

    private Coordinator locate(String key, byte keyType) {
        if (keyType != 0) {
            // Transactions (key type 1) and share groups are not served: a clear, non-retriable answer.
            return Coordinator.failed(Errors.UNSUPPORTED_VERSION, "Raftline's Kafka listener serves consumer groups only "
                + "(no transactions yet)");
        }
        FindCoordinatorResponse r = coordinator.findCoordinator(FindCoordinatorRequest.newBuilder().setGroupId(key).build());
        if (r.getError().getCode() != ErrorCode.NONE) {
            return Coordinator.failed(KafkaErrors.of(r.getError().getCode()), r.getError().getMessage());
        }
        Optional<Endpoint> kafka = served.current().broker(r.getNodeId()).flatMap(b -> b.endpoint(KafkaApis.ENDPOINT));
        if (kafka.isEmpty()) {
            return Coordinator.failed(Errors.COORDINATOR_NOT_AVAILABLE, "the coordinator, broker " + r.getNodeId()
                + ", has no Kafka listener");
        }
        return new Coordinator(Errors.NONE, null, r.getNodeId(), kafka.get().getHost(), kafka.get().getPort());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Membership

    CompletableFuture<ApiMessage> joinGroup(KafkaRequest request) {
        JoinGroupRequestData req = (JoinGroupRequestData) request.body().data();
        if (req.groupInstanceId() != null) {
            return now(new JoinGroupResponseData().setErrorCode(Errors.UNSUPPORTED_VERSION.code()).setMemberId(req.memberId())
                .setGenerationId(-1));
        }
        JoinGroupRequest.Builder ours = JoinGroupRequest.newBuilder().setGroupId(req.groupId())
            .setSessionTimeoutMs(req.sessionTimeoutMs())
            .setRebalanceTimeoutMs(request.version() >= 1 ? req.rebalanceTimeoutMs() : req.sessionTimeoutMs())
            .setMemberId(req.memberId()).setProtocolType(req.protocolType())
            .setClientId(request.header().clientId() == null ? "" : request.header().clientId());
        if (req.reason() != null) {
            ours.setReason(req.reason());
        }
        boolean consumer = ConsumerProtocolTranslation.CONSUMER.equals(req.protocolType());
        try {
            for (JoinGroupRequestData.JoinGroupRequestProtocol p : req.protocols()) {
                byte[] metadata = consumer ? ConsumerProtocolTranslation.subscriptionToRaftline(p.metadata()) : p.metadata();
                ours.addProtocols(JoinGroupRequest.Protocol.newBuilder().setName(p.name()).setMetadata(ByteString.copyFrom(metadata)));
            }
        } catch (IllegalArgumentException e) {
            return now(new JoinGroupResponseData().setErrorCode(Errors.INCONSISTENT_GROUP_PROTOCOL.code())
                .setMemberId(req.memberId()).setGenerationId(-1));
        }
        JoinGroupRequest join = ours.build();
        CompletableFuture<JoinGroupResponse> joined = coordinator.joinGroup(join, request.clientHost());
        if (request.version() < 4 && req.memberId().isEmpty()) {
            // Before v4 a new member is not told to come back with an id (KIP-394): join again with it here.
            joined = joined.thenCompose(first -> first.getError().getCode() == ErrorCode.MEMBER_ID_REQUIRED
                ? coordinator.joinGroup(join.toBuilder().setMemberId(first.getMemberId()).build(), request.clientHost())
                : CompletableFuture.completedFuture(first));
        }
        return joined.thenApply(r -> {
            JoinGroupResponseData out = new JoinGroupResponseData().setErrorCode(KafkaApis.code(r.getError()))
                .setGenerationId(r.getGenerationId())
                .setProtocolType(r.getProtocolType().isEmpty() || request.version() < 7 ? null : r.getProtocolType())
                .setProtocolName(r.getProtocolName().isEmpty() && request.version() >= 7 ? null : r.getProtocolName())
                .setLeader(r.getLeader()).setMemberId(r.getMemberId());
            for (JoinGroupResponse.Member m : r.getMembersList()) {
                byte[] metadata = m.getMetadata().toByteArray();
                out.members().add(new JoinGroupResponseData.JoinGroupResponseMember().setMemberId(m.getMemberId())
                    .setMetadata(consumer ? ConsumerProtocolTranslation.subscriptionToKafka(metadata) : metadata));
            }
            return out;
        });
    }

    CompletableFuture<ApiMessage> syncGroup(KafkaRequest request) {
        SyncGroupRequestData req = (SyncGroupRequestData) request.body().data();
        SyncGroupRequest.Builder ours = SyncGroupRequest.newBuilder().setGroupId(req.groupId())
            .setGenerationId(req.generationId()).setMemberId(req.memberId());
        if (req.protocolType() != null) {
            ours.setProtocolType(req.protocolType());
        }
        if (req.protocolName() != null) {
            ours.setProtocolName(req.protocolName());
        }
        // Before v5 the request does not say the protocol type: the group's is the coordinator's to tell.
        String protocolType = req.protocolType() != null ? req.protocolType() : req.assignments().isEmpty() ? ""
            : groupProtocolType(req.groupId());
        boolean consumer = ConsumerProtocolTranslation.CONSUMER.equals(protocolType);
        try {
            for (SyncGroupRequestData.SyncGroupRequestAssignment a : req.assignments()) {
                byte[] assignment = consumer ? ConsumerProtocolTranslation.assignmentToRaftline(a.assignment()) : a.assignment();
                ours.addAssignments(SyncGroupRequest.Assignment.newBuilder().setMemberId(a.memberId())
                    .setAssignment(ByteString.copyFrom(assignment)));
            }
        } catch (IllegalArgumentException e) {
            return now(new SyncGroupResponseData().setErrorCode(Errors.INCONSISTENT_GROUP_PROTOCOL.code()));
        }
        return coordinator.syncGroup(ours.build()).thenApply(r -> {
            byte[] assignment = r.getAssignment().toByteArray();
            if (ConsumerProtocolTranslation.CONSUMER.equals(r.getProtocolType())) {
                assignment = ConsumerProtocolTranslation.assignmentToKafka(assignment);
            }
            return new SyncGroupResponseData()
                .setErrorCode(KafkaApis.code(r.getError()))
                .setProtocolType(r.getProtocolType().isEmpty() || request.version() < 5 ? null : r.getProtocolType())
                .setProtocolName(r.getProtocolName().isEmpty() || request.version() < 5 ? null : r.getProtocolName())
                .setAssignment(assignment);
        });
    }

    private String groupProtocolType(String groupId) {
        DescribeGroupsResponse d = coordinator.describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds(groupId).build());
        return d.getGroupsCount() == 1 ? d.getGroups(0).getProtocolType() : "";
    }

    CompletableFuture<ApiMessage> heartbeat(KafkaRequest request) {
        HeartbeatRequestData req = (HeartbeatRequestData) request.body().data();
        return now(new HeartbeatResponseData().setErrorCode(KafkaApis.code(coordinator.heartbeat(HeartbeatRequest.newBuilder()
            .setGroupId(req.groupId()).setGenerationId(req.generationId()).setMemberId(req.memberId()).build()).getError())));
    }

    CompletableFuture<ApiMessage> leaveGroup(KafkaRequest request) {
        LeaveGroupRequestData req = (LeaveGroupRequestData) request.body().data();
        LeaveGroupRequest.Builder ours = LeaveGroupRequest.newBuilder().setGroupId(req.groupId());
        if (request.version() < 3) {
            ours.addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId(req.memberId()));
        } else {
            for (LeaveGroupRequestData.MemberIdentity m : req.members()) {
                ours.addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId(m.memberId())
                    .setReason(m.reason() == null ? "" : m.reason()));
            }
        }
        LeaveGroupResponse r = coordinator.leaveGroup(ours.build());
        LeaveGroupResponseData out = new LeaveGroupResponseData().setErrorCode(KafkaApis.code(r.getError()));
        if (request.version() < 3 && out.errorCode() == Errors.NONE.code() && r.getMembersCount() == 1) {
            // one member, one error: v0-2 have only the request's
            out.setErrorCode(KafkaApis.code(r.getMembers(0).getError()));
        }
        for (LeaveGroupResponse.MemberResult m : request.version() >= 3 ? r.getMembersList() : List.<LeaveGroupResponse.MemberResult>of()) {
            out.members().add(new LeaveGroupResponseData.MemberResponse().setMemberId(m.getMemberId())
                .setErrorCode(KafkaApis.code(m.getError())));
        }
        return now(out);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Offsets

    CompletableFuture<ApiMessage> offsetCommit(KafkaRequest request) {
        OffsetCommitRequestData req = (OffsetCommitRequestData) request.body().data();
        OffsetCommitRequest.Builder ours = OffsetCommitRequest.newBuilder().setGroupId(req.groupId())
            .setGenerationId(req.generationIdOrMemberEpoch()).setMemberId(req.memberId());
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : req.topics()) {
            OffsetCommitRequest.Topic.Builder topic = OffsetCommitRequest.Topic.newBuilder().setName(t.name());
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                topic.addPartitions(OffsetCommitRequest.Partition.newBuilder().setPartition(p.partitionIndex())
                    .setCommittedOffset(p.committedOffset()).setCommittedLeaderEpoch(p.committedLeaderEpoch())
                    .setMetadata(p.committedMetadata() == null ? "" : p.committedMetadata()));
            }
            ours.addTopics(topic);
        }
        return coordinator.commitOffsets(ours.build()).thenApply(r -> offsetCommitResponse(req, r));
    }

    private static OffsetCommitResponseData offsetCommitResponse(OffsetCommitRequestData req, OffsetCommitResponse r) {
        OffsetCommitResponseData out = new OffsetCommitResponseData();
        if (r.getError().getCode() != ErrorCode.NONE) {
            // an error for the whole request, told for each partition as Kafka does
            short code = KafkaApis.code(r.getError());
            for (OffsetCommitRequestData.OffsetCommitRequestTopic t : req.topics()) {
                OffsetCommitResponseData.OffsetCommitResponseTopic topic =
                    new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(t.name());
                for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                    topic.partitions().add(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(code));
                }
                out.topics().add(topic);
            }
            return out;
        }
        for (OffsetCommitResponse.TopicResult t : r.getTopicsList()) {
            OffsetCommitResponseData.OffsetCommitResponseTopic topic =
                new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(t.getName());
            for (OffsetCommitResponse.PartitionResult p : t.getPartitionsList()) {
                topic.partitions().add(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                    .setPartitionIndex(p.getPartition()).setErrorCode(KafkaApis.code(p.getError())));
            }
            out.topics().add(topic);
        }
        return out;
    }

    CompletableFuture<ApiMessage> offsetFetch(KafkaRequest request) {
        OffsetFetchRequestData req = (OffsetFetchRequestData) request.body().data();
        OffsetFetchRequest.Builder ours = OffsetFetchRequest.newBuilder().setGroupId(req.groupId());
        if (req.topics() != null) {
            for (OffsetFetchRequestData.OffsetFetchRequestTopic t : req.topics()) {
                ours.addTopics(OffsetFetchRequest.Topic.newBuilder().setName(t.name()).addAllPartitions(t.partitionIndexes()));
            }
        }
        OffsetFetchResponse r = coordinator.fetchOffsets(ours.build());
        OffsetFetchResponseData out = new OffsetFetchResponseData().setErrorCode(KafkaApis.code(r.getError()));
        for (OffsetFetchResponse.TopicResult t : r.getTopicsList()) {
            OffsetFetchResponseData.OffsetFetchResponseTopic topic =
                new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(t.getName());
            for (OffsetFetchResponse.PartitionResult p : t.getPartitionsList()) {
                topic.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                    .setPartitionIndex(p.getPartition()).setCommittedOffset(p.getCommittedOffset())
                    .setCommittedLeaderEpoch(p.getCommittedLeaderEpoch()).setMetadata(p.getMetadata())
                    .setErrorCode(KafkaApis.code(p.getError())));
            }
            out.topics().add(topic);
        }
        return now(out);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Listing and describing

    CompletableFuture<ApiMessage> listGroups(KafkaRequest request) {
        ListGroupsRequestData req = (ListGroupsRequestData) request.body().data();
        ListGroupsResponse r = coordinator.listGroups(ListGroupsRequest.newBuilder().addAllStatesFilter(req.statesFilter()).build());
        ListGroupsResponseData out = new ListGroupsResponseData().setErrorCode(KafkaApis.code(r.getError()));
        for (ListGroupsResponse.Group g : r.getGroupsList()) {
            out.groups().add(new ListGroupsResponseData.ListedGroup().setGroupId(g.getGroupId())
                .setProtocolType(g.getProtocolType()).setGroupState(g.getState()));
        }
        return now(out);
    }

    CompletableFuture<ApiMessage> describeGroups(KafkaRequest request) {
        DescribeGroupsRequestData req = (DescribeGroupsRequestData) request.body().data();
        DescribeGroupsResponse r = coordinator.describeGroups(DescribeGroupsRequest.newBuilder()
            .addAllGroupIds(req.groups()).build());
        DescribeGroupsResponseData out = new DescribeGroupsResponseData();
        for (DescribeGroupsResponse.Group g : r.getGroupsList()) {
            DescribeGroupsResponseData.DescribedGroup group = new DescribeGroupsResponseData.DescribedGroup()
                .setErrorCode(g.getError().getCode() == ErrorCode.GROUP_ID_NOT_FOUND ? Errors.NONE.code() : KafkaApis.code(g.getError()))
                .setGroupId(g.getGroupId()).setGroupState(g.getState()).setProtocolType(g.getProtocolType())
                .setProtocolData(g.getProtocol());
            boolean consumer = ConsumerProtocolTranslation.CONSUMER.equals(g.getProtocolType());
            for (DescribeGroupsResponse.Member m : g.getMembersList()) {
                byte[] metadata = m.getMetadata().toByteArray();
                byte[] assignment = m.getAssignment().toByteArray();
                group.members().add(new DescribeGroupsResponseData.DescribedGroupMember().setMemberId(m.getMemberId())
                    .setClientId(m.getClientId()).setClientHost(m.getClientHost())
                    .setMemberMetadata(consumer && metadata.length > 0 ? ConsumerProtocolTranslation.subscriptionToKafka(metadata)
                        : metadata)
                    .setMemberAssignment(consumer ? ConsumerProtocolTranslation.assignmentToKafka(assignment) : assignment));
            }
            out.groups().add(group);
        }
        return now(out);
    }

    // ---------------------------------------------------------------------------------------------------------
    // DeleteGroups: empty groups only, with their committed offsets (clients send each group to its coordinator)

    CompletableFuture<ApiMessage> deleteGroups(KafkaRequest request) {
        DeleteGroupsRequestData req = (DeleteGroupsRequestData) request.body().data();
        return coordinator.deleteGroups(DeleteGroupsRequest.newBuilder().addAllGroupIds(req.groupsNames()).build())
            .thenApply(r -> {
                DeleteGroupsResponseData out = new DeleteGroupsResponseData();
                for (DeleteGroupsResponse.Result g : r.getResultsList()) {
                    out.results().add(new DeleteGroupsResponseData.DeletableGroupResult().setGroupId(g.getGroupId())
                        .setErrorCode(KafkaApis.code(g.getError())).setErrorMessage(KafkaApis.message(g.getError())));
                }
                return out;
            });
    }

    // ---------------------------------------------------------------------------------------------------------
    // OffsetDelete: some of a group's committed offsets (clients send it to the group's coordinator)

    CompletableFuture<ApiMessage> offsetDelete(KafkaRequest request) {
        OffsetDeleteRequestData req = (OffsetDeleteRequestData) request.body().data();
        OffsetDeleteRequest.Builder ours = OffsetDeleteRequest.newBuilder().setGroupId(req.groupId());
        for (OffsetDeleteRequestData.OffsetDeleteRequestTopic t : req.topics()) {
            OffsetDeleteRequest.Topic.Builder topic = OffsetDeleteRequest.Topic.newBuilder().setName(t.name());
            t.partitions().forEach(p -> topic.addPartitions(p.partitionIndex()));
            ours.addTopics(topic);
        }
        return coordinator.deleteOffsets(ours.build()).thenApply(r -> {
            OffsetDeleteResponseData out = new OffsetDeleteResponseData().setErrorCode(KafkaApis.code(r.getError()));
            if (r.getError().getCode() != ErrorCode.NONE) {
                return out; // Kafka answers a group-level error without partitions
            }
            for (OffsetDeleteResponse.TopicResult t : r.getTopicsList()) {
                OffsetDeleteResponseData.OffsetDeleteResponseTopic topic =
                    new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(t.getName());
                for (OffsetDeleteResponse.PartitionResult p : t.getPartitionsList()) {
                    topic.partitions().add(new OffsetDeleteResponseData.OffsetDeleteResponsePartition()
                        .setPartitionIndex(p.getPartition()).setErrorCode(KafkaApis.code(p.getError())));
                }
                out.topics().add(topic);
            }
            return out;
        });
    }
}
