package io.raftline.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.group.DescribeGroupsRequest;
import io.raftline.protocol.group.FindCoordinatorRequest;
import io.raftline.protocol.group.GroupServiceGrpc;
import io.raftline.protocol.group.JoinGroupResponse;
import io.raftline.protocol.group.OffsetCommitRequest;
import io.raftline.protocol.group.OffsetFetchRequest;
import io.raftline.protocol.group.SyncGroupRequest;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The adapter over a real socket: requests reach the coordinator, delayed answers come back, the caller's host is seen. */
class GroupRpcServiceTest {

    private Server server;
    private ManagedChannel channel;

    @AfterEach
    void close() throws InterruptedException {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void theProtocolOverGrpc() throws Exception {
        CoordinatorHarness h = new CoordinatorHarness(0);
        GroupCoordinator c = h.loadedCoordinator(1, 1);
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(GroupRpcService.serviceDefinition(c, io.raftline.broker.security.RequestAuthorizer.OFF)).build().start();
        int port = server.getPort();
        for (int p = 0; p < CoordinatorHarness.PARTITIONS; p++) {
            h.topic.setLeader(p, 1);
        }
        h.topic.setEndpoint(1, "127.0.0.1", port);
        channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        var stub = GroupServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);

        var found = stub.findCoordinator(FindCoordinatorRequest.newBuilder().setGroupId("g").build());
        assertThat(found.getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(found.getEndpoint().getPort()).isEqualTo(port);

        JoinGroupResponse first = stub.joinGroup(CoordinatorHarness.joinRequest("g", ""));
        assertThat(first.getError().getCode()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        JoinGroupResponse joined = stub.joinGroup(CoordinatorHarness.joinRequest("g", first.getMemberId()));
        assertThat(joined.getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(joined.getLeader()).isEqualTo(joined.getMemberId());
        var synced = stub.syncGroup(SyncGroupRequest.newBuilder().setGroupId("g").setGenerationId(joined.getGenerationId())
            .setMemberId(joined.getMemberId()).addAssignments(SyncGroupRequest.Assignment.newBuilder()
                .setMemberId(joined.getMemberId()).setAssignment(com.google.protobuf.ByteString.copyFromUtf8("all"))).build());
        assertThat(synced.getAssignment().toStringUtf8()).isEqualTo("all");

        var committed = stub.offsetCommit(OffsetCommitRequest.newBuilder().setGroupId("g").setGenerationId(joined.getGenerationId())
            .setMemberId(joined.getMemberId()).addTopics(OffsetCommitRequest.Topic.newBuilder().setName("t")
                .addPartitions(OffsetCommitRequest.Partition.newBuilder().setPartition(0).setCommittedOffset(17))).build());
        assertThat(committed.getTopics(0).getPartitions(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
        var fetched = stub.offsetFetch(OffsetFetchRequest.newBuilder().setGroupId("g").build());
        assertThat(fetched.getTopics(0).getPartitions(0).getCommittedOffset()).isEqualTo(17);

        var described = stub.describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds("g").build());
        assertThat(described.getGroups(0).getState()).isEqualTo("Stable");
        assertThat(described.getGroups(0).getMembers(0).getClientHost()).isEqualTo("/127.0.0.1");
    }
}
