package io.raftline.broker.group;

import static io.raftline.broker.rpc.HostileValues.ints;
import static io.raftline.broker.rpc.HostileValues.longs64;
import static io.raftline.broker.rpc.HostileValues.names;
import static io.raftline.broker.rpc.HostileValues.oneError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.raftline.broker.rpc.StreamAnswers;
import io.raftline.broker.security.RequestAuthorizer;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.group.DeleteGroupsRequest;
import io.raftline.protocol.group.DescribeGroupsRequest;
import io.raftline.protocol.group.FindCoordinatorRequest;
import io.raftline.protocol.group.GroupServiceGrpc;
import io.raftline.protocol.group.HeartbeatRequest;
import io.raftline.protocol.group.JoinGroupRequest;
import io.raftline.protocol.group.JoinGroupResponse;
import io.raftline.protocol.group.LeaveGroupRequest;
import io.raftline.protocol.group.ListGroupsRequest;
import io.raftline.protocol.group.OffsetCommitRequest;
import io.raftline.protocol.group.OffsetFetchRequest;
import io.raftline.protocol.group.SyncGroupRequest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Group RPCs whose fields a hostile or broken client chose (group and member ids empty, oversized or unicode;
 * generations, timeouts, partitions and offsets at the int and long edges; unknown protocol types; empty and
 * duplicated repeated fields), over in-process gRPC into the real {@link GroupRpcService} and a loaded
 * {@link GroupCoordinator} with a manual clock, one stable group {@code g} with a committed offset. Each call is
 * answered (delayed answers once the clock passes the rebalance timeout), never failed with UNKNOWN or INTERNAL;
 * every error is one code other than UNKNOWN with a message; a refused call leaves the groups and their committed
 * offsets as they were.
 */
@Timeout(60)
class HostileGroupRequestsTest {

    private static final long SEED = 20261206L;

    private CoordinatorHarness harness;
    private GroupCoordinator coordinator;
    private Server server;
    private ManagedChannel channel;
    private GroupServiceGrpc.GroupServiceStub stub;

    @BeforeEach
    void start() throws Exception {
        harness = new CoordinatorHarness(0);
        coordinator = harness.loadedCoordinator(1, SEED);
        String name = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(name)
            .addService(GroupRpcService.serviceDefinition(coordinator, RequestAuthorizer.OFF)).build().start();
        channel = InProcessChannelBuilder.forName(name).build();
        stub = GroupServiceGrpc.newStub(channel);
        JoinGroupResponse joined = CoordinatorHarness.joinNew(coordinator, "g").join();
        CoordinatorHarness.sync(coordinator, "g", joined.getGenerationId(), joined.getMemberId(),
            Map.of(joined.getMemberId(), "all")).join();
        assertThat(coordinator.commitOffsets(OffsetCommitRequest.newBuilder().setGroupId("g")
            .setGenerationId(joined.getGenerationId()).setMemberId(joined.getMemberId())
            .addTopics(OffsetCommitRequest.Topic.newBuilder().setName("t").addPartitions(OffsetCommitRequest.Partition
                .newBuilder().setPartition(0).setCommittedOffset(5))).build()).join().getError().getCode())
            .isEqualTo(ErrorCode.NONE);
    }

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow();
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        coordinator.shutdown();
    }

    private static Gen<String> groups() {
        return names("g");
    }

    private static Gen<String> members() {
        return names().mix(Generate.pick(List.of("", "client-1", "unknown-member")), 30);
    }

    private static Gen<String> protocolTypes() {
        return Generate.pick(List.of("consumer", "", "connect", "x".repeat(300))).mix(strings().allPossible()
            .ofLengthBetween(0, 10), 20);
    }

    @Test
    void joinSyncHeartbeatLeave() {
        Gen<JoinGroupRequest.Protocol> protocol = names("range", "roundrobin").zip(lists().of(integers().between(0, 255))
            .ofSizeBetween(0, 40), (n, bytes) -> JoinGroupRequest.Protocol.newBuilder().setName(n)
                .setMetadata(ByteString.copyFrom(toBytes(bytes))).build());
        Gen<JoinGroupRequest> join = groups().zip(members(), ints(), protocolTypes(),
            lists().of(protocol).ofSizeBetween(0, 4), (group, member, timeout, type, protocols) ->
                JoinGroupRequest.newBuilder().setGroupId(group).setMemberId(member).setSessionTimeoutMs(timeout)
                    .setRebalanceTimeoutMs(timeout == Integer.MIN_VALUE ? 0 : Math.abs(timeout) % 60_000)
                    .setProtocolType(type).addAllProtocols(protocols).setClientId(member).build());
        qt().withFixedSeed(SEED).withExamples(200).forAll(join, ints(), members()).checkAssert((request, generation, other) -> {
            answered(stub::joinGroup, request, r -> r.getError());
            answered(stub::syncGroup, SyncGroupRequest.newBuilder().setGroupId(request.getGroupId()).setGenerationId(generation)
                .setMemberId(request.getMemberId()).setProtocolType(request.getProtocolType())
                .addAssignments(SyncGroupRequest.Assignment.newBuilder().setMemberId(other)
                    .setAssignment(ByteString.copyFromUtf8("x")))
                .addAssignments(SyncGroupRequest.Assignment.newBuilder().setMemberId(other)).build(), r -> r.getError());
            answered(stub::heartbeat, HeartbeatRequest.newBuilder().setGroupId(request.getGroupId()).setGenerationId(generation)
                .setMemberId(other).build(), r -> r.getError());
            answered(stub::leaveGroup, LeaveGroupRequest.newBuilder().setGroupId(request.getGroupId())
                .addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId(other))
                .addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId(other)).build(), (r, refused) -> {
                    oneError(r.getError());
                    r.getMembersList().forEach(m -> oneError(m.getError()));
                });
        });
    }

    @Test
    void offsetCommitAndFetch() {
        Gen<OffsetCommitRequest.Partition> partition = ints().zip(longs64(), ints(), (p, offset, epoch) ->
            OffsetCommitRequest.Partition.newBuilder().setPartition(p).setCommittedOffset(offset).setCommittedLeaderEpoch(epoch)
                .setMetadata(p % 7 == 0 ? "m".repeat(5_000) : "").build());
        Gen<OffsetCommitRequest.Topic> topic = names("t").zip(lists().of(partition).ofSizeBetween(0, 5), (t, ps) ->
            OffsetCommitRequest.Topic.newBuilder().setName(t).addAllPartitions(ps).build());
        Gen<OffsetCommitRequest> commit = groups().zip(ints(), members(), lists().of(topic).ofSizeBetween(0, 4),
            (group, generation, member, topics) -> OffsetCommitRequest.newBuilder().setGroupId(group)
                .setGenerationId(generation).setMemberId(member).addAllTopics(topics).build());
        qt().withFixedSeed(SEED).withExamples(300).forAll(commit).checkAssert(request -> {
            Map<String, List<GroupCoordinator.GroupSnapshot>> before = groupsNow();
            boolean[] refused = {true};
            answered(stub::offsetCommit, request, (r, wasRefused) -> {
                oneError(r.getError());
                r.getTopicsList().forEach(t -> t.getPartitionsList().forEach(p -> {
                    oneError(p.getError());
                    if (p.getError().getCode() == ErrorCode.NONE) {
                        refused[0] = false;
                    }
                }));
            });
            if (refused[0]) {
                assertThat(committed()).as("committed offsets after a refused commit").isEqualTo(committed(before));
            }
            OffsetFetchRequest.Builder fetch = OffsetFetchRequest.newBuilder().setGroupId(request.getGroupId());
            request.getTopicsList().forEach(t -> fetch.addTopics(OffsetFetchRequest.Topic.newBuilder().setName(t.getName())
                .addAllPartitions(t.getPartitionsList().stream().map(OffsetCommitRequest.Partition::getPartition).toList())));
            answered(stub::offsetFetch, fetch.build(), (r, x) -> {
                oneError(r.getError());
                r.getTopicsList().forEach(t -> t.getPartitionsList().forEach(p -> oneError(p.getError())));
            });
        });
    }

    @Test
    void findListDescribeDelete() {
        Gen<List<String>> ids = lists().of(groups()).ofSizeBetween(0, 5);
        Gen<List<String>> states = lists().of(Generate.pick(List.of("Empty", "Stable", "Dead", "", "stable", "\u0000")))
            .ofSizeBetween(0, 3);
        qt().withFixedSeed(SEED).withExamples(200).forAll(ids, states, booleans().all()).checkAssert((groupIds, filter, offsets) -> {
            for (String id : groupIds) {
                answered(stub::findCoordinator, FindCoordinatorRequest.newBuilder().setGroupId(id).build(), r -> r.getError());
            }
            answered(stub::listGroups, ListGroupsRequest.newBuilder().addAllStatesFilter(filter).build(), r -> r.getError());
            answered(stub::describeGroups, DescribeGroupsRequest.newBuilder().addAllGroupIds(groupIds).setIncludeOffsets(offsets)
                .build(), (r, x) -> r.getGroupsList().forEach(g -> oneError(g.getError())));
            Map<String, List<GroupCoordinator.GroupSnapshot>> before = groupsNow();
            answered(stub::deleteGroups, DeleteGroupsRequest.newBuilder().addAllGroupIds(groupIds).build(), (r, x) -> {
                r.getResultsList().forEach(g -> {
                    oneError(g.getError());
                    if (g.getGroupId().equals("g")) {
                        assertThat(g.getError().getCode()).as("g has a member").isEqualTo(ErrorCode.NON_EMPTY_GROUP);
                    }
                });
            });
            assertThat(groupsNow().keySet()).as("groups after deleting %s", groupIds).containsAll(
                before.keySet().stream().filter(id -> !groupIds.contains(id) || id.equals("g")).toList());
        });
    }

    // ---------------------------------------------------------------------------------------------------------

    private Map<String, List<GroupCoordinator.GroupSnapshot>> groupsNow() {
        Map<String, List<GroupCoordinator.GroupSnapshot>> out = new java.util.TreeMap<>();
        coordinator.snapshot().forEach(s -> out.computeIfAbsent(s.groupId(), k -> new java.util.ArrayList<>()).add(s));
        return out;
    }

    /** The committed offsets of each group that has any. */
    private Map<String, Object> committed() {
        return committed(groupsNow());
    }

    private static Map<String, Object> committed(Map<String, List<GroupCoordinator.GroupSnapshot>> groups) {
        Map<String, Object> out = new java.util.TreeMap<>();
        groups.forEach((id, s) -> {
            if (!s.get(0).committed().isEmpty()) {
                out.put(id, s.get(0).committed());
            }
        });
        return out;
    }

    /** As below, with the answer's one error to check. */
    private <Q, R extends Message> void answered(BiConsumer<Q, StreamObserver<R>> call, Q request,
                                                java.util.function.Function<R, Error> error) {
        answered(call, request, (r, x) -> oneError(error.apply(r)));
    }

    /**
     * Calls and waits for the answer, moving the manual clock past the rebalance timeout while it is delayed (a join
     * waits for the join phase to end); fails on an RPC failure or no answer.
     */
    private <Q, R extends Message> void answered(BiConsumer<Q, StreamObserver<R>> call, Q request,
                                                BiConsumer<R, Boolean> check) {
        CompletableFuture<R> answer = new CompletableFuture<>();
        call.accept(request, StreamAnswers.into(answer));
        R response = null;
        for (int round = 0; round < 50 && response == null; round++) {
            try {
                response = answer.get(round == 0 ? 200 : 20, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                harness.advance(CoordinatorHarness.REBALANCE_MS);
                harness.runLoads();
            } catch (java.util.concurrent.ExecutionException e) {
                Status status = e.getCause() instanceof StatusRuntimeException s ? s.getStatus() : Status.fromThrowable(e);
                throw new AssertionError("the RPC failed instead of answering " + request + ": " + status, e.getCause());
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
        assertThat(response).as("an answer to %s", request).isNotNull();
        check.accept(response, false);
    }

    private static byte[] toBytes(List<Integer> values) {
        byte[] out = new byte[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) (int) values.get(i);
        }
        return out;
    }
}
