package io.raftline.client.consumer.internals.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor;
import io.raftline.client.consumer.assignor.ConsumerProtocol;
import io.raftline.client.consumer.assignor.RangeAssignor;
import io.raftline.common.SystemTime;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.HostPort;
import io.raftline.protocol.group.FindCoordinatorRequest;
import io.raftline.protocol.group.FindCoordinatorResponse;
import io.raftline.protocol.group.GroupServiceGrpc;
import io.raftline.protocol.group.HeartbeatRequest;
import io.raftline.protocol.group.HeartbeatResponse;
import io.raftline.protocol.group.JoinGroupRequest;
import io.raftline.protocol.group.JoinGroupResponse;
import io.raftline.protocol.group.LeaveGroupRequest;
import io.raftline.protocol.group.LeaveGroupResponse;
import io.raftline.protocol.group.SyncGroupRequest;
import io.raftline.protocol.group.SyncGroupResponse;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A JoinGroup (or SyncGroup) the coordinator holds, as it does until every member rejoined, stays pending across the
 * member's polls: each poll returns at its own deadline, the next goes on with the same request (no second JoinGroup,
 * one revocation), and the rebalance completes once the answer comes. A wakeup ends a poll waiting for it; close
 * abandons it and still leaves the group. A scripted coordinator holds the answers for as long as the test wants; the
 * member's rebalance timeout (max.poll.interval.ms) is 60 s, above every test's timeout, so a poll that waited for
 * the answer instead of its own deadline fails the test.
 */
@Timeout(30)
class JoinAcrossPollsTest {

    private static final String GROUP = "across-polls";
    private static final List<TopicPartition> BOTH = List.of(new TopicPartition("t", 0), new TopicPartition("t", 1));

    private Server server;
    private final ScriptedCoordinator coordinator = new ScriptedCoordinator();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private ConsumerCoordinator member;

    @BeforeEach
    void start() throws Exception {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(coordinator).build().start();
        coordinator.port = server.getPort();
        Node broker = new Node(1, "127.0.0.1", coordinator.port, null);
        GroupHost host = new GroupHost() {
            @Override
            public Set<String> subscription() {
                return Set.of("t");
            }

            @Override
            public List<Node> brokers() {
                return List.of(broker);
            }

            @Override
            public Map<String, Integer> partitionCounts(Set<String> topics, long timeoutMs) {
                return Map.of("t", 2);
            }
        };
        GroupRebalanceListener listener = new GroupRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                events.add("revoked " + partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                events.add("assigned " + partitions);
            }
        };
        GroupMembershipConfig config = new GroupMembershipConfig(GROUP, "c1", 10_000, 100, 60_000, 5000, 10);
        member = new ConsumerCoordinator(config, host, listener, List.<ConsumerPartitionAssignor>of(new RangeAssignor()),
            SystemTime.INSTANCE);
        await().atMost(Duration.ofSeconds(20)).until(() -> member.poll(100));
        assertThat(member.generation().generationId()).isEqualTo(1);
        assertThat(member.assignment()).containsExactlyInAnyOrderElementsOf(BOTH);
        events.clear();
    }

    @AfterEach
    void stop() throws Exception {
        coordinator.releaseAll();
        if (member != null) {
            member.close(1000);
        }
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void aHeldJoinGroupStaysPendingAcrossPollsAndIsSentOnce() {
        coordinator.holdJoins = true;
        member.requestRejoin("the test asks for a rebalance");
        for (int i = 0; i < 5; i++) {
            assertThat(member.poll(100)).as("poll %d with the JoinGroup held", i).isFalse();
            assertThat(member.state()).isEqualTo(ConsumerCoordinator.MemberState.PREPARING_REBALANCE);
        }
        assertThat(coordinator.joins.get()).as("JoinGroups sent: the first join and one rejoin").isEqualTo(2);
        assertThat(events).as("eager: revoked once, before the one JoinGroup").containsExactly("revoked " + BOTH);

        coordinator.releaseJoin();
        await().atMost(Duration.ofSeconds(20)).until(() -> member.poll(100));
        assertThat(member.generation().generationId()).isEqualTo(2);
        assertThat(member.assignment()).containsExactlyInAnyOrderElementsOf(BOTH);
        assertThat(coordinator.joins.get()).isEqualTo(2);
        assertThat(events).containsExactly("revoked " + BOTH, "assigned " + BOTH);
    }

    @Test
    void aHeldSyncGroupStaysPendingAcrossPolls() {
        coordinator.holdSyncs = true;
        member.requestRejoin("the test asks for a rebalance");
        for (int i = 0; i < 5; i++) {
            assertThat(member.poll(100)).as("poll %d with the SyncGroup held", i).isFalse();
        }
        assertThat(member.state()).isEqualTo(ConsumerCoordinator.MemberState.COMPLETING_REBALANCE);
        assertThat(coordinator.syncs.get()).as("SyncGroups sent: the first and one for generation 2").isEqualTo(2);
        assertThat(coordinator.joins.get()).isEqualTo(2);

        coordinator.releaseSync();
        await().atMost(Duration.ofSeconds(20)).until(() -> member.poll(100));
        assertThat(member.generation().generationId()).isEqualTo(2);
        assertThat(member.assignment()).containsExactlyInAnyOrderElementsOf(BOTH);
        assertThat(coordinator.syncs.get()).isEqualTo(2);
    }

    @Test
    void aWakeupEndsAPollWaitingForAHeldJoinGroup() throws Exception {
        coordinator.holdJoins = true;
        member.requestRejoin("the test asks for a rebalance");
        CompletableFuture<Boolean> poll = CompletableFuture.supplyAsync(() -> member.poll(25_000));
        await().atMost(Duration.ofSeconds(20)).until(() -> coordinator.heldJoin.get() != null);
        member.wakeup();
        assertThat(poll.get(20, TimeUnit.SECONDS)).isFalse();
        // The join is still the pending one: the next poll completes it without sending another.
        coordinator.releaseJoin();
        await().atMost(Duration.ofSeconds(20)).until(() -> member.poll(100));
        assertThat(coordinator.joins.get()).isEqualTo(2);
        assertThat(member.generation().generationId()).isEqualTo(2);
    }

    @Test
    void closeWithAJoinGroupPendingAbandonsItAndLeavesTheGroup() {
        coordinator.holdJoins = true;
        member.requestRejoin("the test asks for a rebalance");
        assertThat(member.poll(100)).isFalse();
        await().atMost(Duration.ofSeconds(20)).until(() -> coordinator.heldJoin.get() != null);
        ServerCallStreamObserver<JoinGroupResponse> held = coordinator.heldJoin.get();

        member.close(5000);
        assertThat(coordinator.leaves).containsExactly("m-1");
        await().atMost(Duration.ofSeconds(20)).until(held::isCancelled);
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("raftline-heartbeat-" + GROUP));
        member = null;
    }

    /** One-member group coordinator whose JoinGroup and SyncGroup answers the test can hold. */
    private static final class ScriptedCoordinator extends GroupServiceGrpc.GroupServiceImplBase {
        volatile int port;
        volatile boolean holdJoins;
        volatile boolean holdSyncs;
        final AtomicInteger joins = new AtomicInteger();
        final AtomicInteger syncs = new AtomicInteger();
        final AtomicInteger generation = new AtomicInteger();
        final List<String> leaves = new CopyOnWriteArrayList<>();
        final AtomicReference<ServerCallStreamObserver<JoinGroupResponse>> heldJoin = new AtomicReference<>();
        final AtomicReference<StreamObserver<SyncGroupResponse>> heldSync = new AtomicReference<>();
        private volatile JoinGroupResponse heldJoinAnswer;
        private volatile SyncGroupResponse heldSyncAnswer;

        private static Error error(ErrorCode code) {
            return Error.newBuilder().setCode(code).build();
        }

        void releaseJoin() {
            StreamObserver<JoinGroupResponse> out = heldJoin.getAndSet(null);
            holdJoins = false;
            if (out != null) {
                out.onNext(heldJoinAnswer);
                out.onCompleted();
            }
        }

        void releaseSync() {
            StreamObserver<SyncGroupResponse> out = heldSync.getAndSet(null);
            holdSyncs = false;
            if (out != null) {
                out.onNext(heldSyncAnswer);
                out.onCompleted();
            }
        }

        void releaseAll() {
            try {
                releaseJoin();
                releaseSync();
            } catch (RuntimeException e) {
                // The member abandoned the call (close): nothing to answer.
            }
        }

        @Override
        public void findCoordinator(FindCoordinatorRequest request, StreamObserver<FindCoordinatorResponse> out) {
            out.onNext(FindCoordinatorResponse.newBuilder().setError(error(ErrorCode.NONE)).setNodeId(1)
                .setEndpoint(HostPort.newBuilder().setHost("127.0.0.1").setPort(port)).build());
            out.onCompleted();
        }

        @Override
        public void joinGroup(JoinGroupRequest request, StreamObserver<JoinGroupResponse> out) {
            if (request.getMemberId().isEmpty()) {
                out.onNext(JoinGroupResponse.newBuilder().setError(error(ErrorCode.MEMBER_ID_REQUIRED)).setMemberId("m-1")
                    .setGenerationId(-1).build());
                out.onCompleted();
                return;
            }
            joins.incrementAndGet();
            int gen = generation.incrementAndGet();
            JoinGroupResponse answer = JoinGroupResponse.newBuilder().setError(error(ErrorCode.NONE)).setGenerationId(gen)
                .setProtocolType(ConsumerProtocol.PROTOCOL_TYPE).setProtocolName(request.getProtocols(0).getName())
                .setLeader("m-1").setMemberId("m-1")
                .addMembers(JoinGroupResponse.Member.newBuilder().setMemberId("m-1").setMetadata(request.getProtocols(0).getMetadata()))
                .build();
            if (holdJoins) {
                heldJoinAnswer = answer;
                heldJoin.set((ServerCallStreamObserver<JoinGroupResponse>) out);
                return;
            }
            out.onNext(answer);
            out.onCompleted();
        }

        @Override
        public void syncGroup(SyncGroupRequest request, StreamObserver<SyncGroupResponse> out) {
            syncs.incrementAndGet();
            byte[] assignment = ConsumerProtocol.serializeAssignment(new ConsumerPartitionAssignor.Assignment(BOTH));
            SyncGroupResponse answer = SyncGroupResponse.newBuilder().setError(error(ErrorCode.NONE))
                .setProtocolType(ConsumerProtocol.PROTOCOL_TYPE).setProtocolName(request.getProtocolName())
                .setAssignment(ByteString.copyFrom(assignment)).build();
            if (holdSyncs) {
                heldSyncAnswer = answer;
                heldSync.set(out);
                return;
            }
            out.onNext(answer);
            out.onCompleted();
        }

        @Override
        public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> out) {
            out.onNext(HeartbeatResponse.newBuilder().setError(error(ErrorCode.NONE)).build());
            out.onCompleted();
        }

        @Override
        public void leaveGroup(LeaveGroupRequest request, StreamObserver<LeaveGroupResponse> out) {
            request.getMembersList().forEach(m -> leaves.add(m.getMemberId()));
            out.onNext(LeaveGroupResponse.newBuilder().setError(error(ErrorCode.NONE)).build());
            out.onCompleted();
        }
    }
}
