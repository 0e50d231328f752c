package io.raftline.client.consumer.internals.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A heartbeat that was on the wire when the member's JoinGroup went out gets an answer about the generation the member
 * is leaving (REBALANCE_IN_PROGRESS or ILLEGAL_GENERATION). Kafka ignores such an answer outside Stable; acting on it
 * made the member rejoin once more after its sync — and a leader's rejoin starts another rebalance, whose members'
 * heartbeats could cross their joins again. A scripted coordinator makes the crossing happen every time: it holds the
 * second heartbeat until the join arrives, answers it, and answers the join only once the heartbeat thread has gone
 * back to waiting (it has handled the answer).
 */
@Timeout(60)
class HeartbeatCrossingJoinTest {

    private static final String GROUP = "crossing";

    private Server server;
    private final ScriptedCoordinator coordinator = new ScriptedCoordinator();
    private ConsumerCoordinator member;

    @BeforeEach
    void start() throws Exception {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(coordinator).build().start();
        coordinator.port = server.getPort();
    }

    @AfterEach
    void stop() throws Exception {
        if (member != null) {
            member.close(1000);
        }
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void aRebalanceAnswerToAHeartbeatThatCrossedTheJoinDoesNotStartAnotherRebalance() {
        coordinator.crossingAnswer = ErrorCode.REBALANCE_IN_PROGRESS;
        runCrossing();
    }

    @Test
    void anIllegalGenerationAnswerToAHeartbeatThatCrossedTheJoinDoesNotFenceTheMember() {
        coordinator.crossingAnswer = ErrorCode.ILLEGAL_GENERATION;
        runCrossing();
    }

    private void runCrossing() {
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
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            }
        };
        GroupMembershipConfig config = new GroupMembershipConfig(GROUP, "c1", 10_000, 100, 30_000, 5000, 10);
        member = new ConsumerCoordinator(config, host, listener, List.<ConsumerPartitionAssignor>of(new RangeAssignor()),
            SystemTime.INSTANCE);
        await().atMost(Duration.ofSeconds(20)).until(() -> member.poll(100));
        assertThat(member.generation().generationId()).isEqualTo(1);

        // The coordinator starts a rebalance: the next heartbeat says so; the one after it is held until the join.
        coordinator.rebalancing = true;
        await().atMost(Duration.ofSeconds(20)).until(() -> coordinator.heldHeartbeat.get() != null);
        assertThat(member.rejoinNeeded()).isTrue();

        await().atMost(Duration.ofSeconds(20)).until(() -> member.poll(100));
        assertThat(coordinator.joins.get()).isEqualTo(2);
        assertThat(member.generation().generationId()).isEqualTo(2);
        assertThat(member.generation().memberId()).isEqualTo("m-1");
        assertThat(member.rejoinNeeded()).as("a rejoin asked for by the crossed heartbeat").isFalse();
        // More polls send no third JoinGroup (a leader's third join would start yet another rebalance).
        for (int i = 0; i < 5; i++) {
            assertThat(member.poll(50)).isTrue();
        }
        assertThat(coordinator.joins.get()).isEqualTo(2);
    }

    /** One-member group coordinator whose answers the test scripts. */
    private final class ScriptedCoordinator extends GroupServiceGrpc.GroupServiceImplBase {
        volatile int port;
        volatile boolean rebalancing;
        volatile ErrorCode crossingAnswer;
        final AtomicInteger joins = new AtomicInteger();
        final AtomicInteger generation = new AtomicInteger();
        final AtomicInteger rebalanceHeartbeats = new AtomicInteger();
        final AtomicReference<StreamObserver<HeartbeatResponse>> heldHeartbeat = new AtomicReference<>();

        private Error error(ErrorCode code) {
            return Error.newBuilder().setCode(code).build();
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
            int n = joins.incrementAndGet();
            if (n == 2) {
                // The join crossed the held heartbeat: answer that one first (about generation 1), and this one
                // only when the heartbeat thread has handled it and gone back to waiting.
                StreamObserver<HeartbeatResponse> hb = heldHeartbeat.get();
                hb.onNext(HeartbeatResponse.newBuilder().setError(error(crossingAnswer)).build());
                hb.onCompleted();
                await().atMost(Duration.ofSeconds(20)).until(this::heartbeatThreadWaits);
                rebalancing = false;
            }
            int gen = generation.incrementAndGet();
            JoinGroupResponse.Builder b = JoinGroupResponse.newBuilder().setError(error(ErrorCode.NONE)).setGenerationId(gen)
                .setProtocolType(ConsumerProtocol.PROTOCOL_TYPE).setProtocolName(request.getProtocols(0).getName())
                .setLeader("m-1").setMemberId("m-1");
            b.addMembers(JoinGroupResponse.Member.newBuilder().setMemberId("m-1").setMetadata(request.getProtocols(0).getMetadata()));
            out.onNext(b.build());
            out.onCompleted();
        }

        private boolean heartbeatThreadWaits() {
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("raftline-heartbeat-" + GROUP)) {
                    // Back in its own Object.wait (not parked inside the gRPC call that carried the answer).
                    StackTraceElement[] stack = t.getStackTrace();
                    return stack.length > 0 && stack[0].getClassName().equals("java.lang.Object")
                        && stack[0].getMethodName().startsWith("wait");
                }
            }
            return false;
        }

        @Override
        public void syncGroup(SyncGroupRequest request, StreamObserver<SyncGroupResponse> out) {
            byte[] assignment = ConsumerProtocol.serializeAssignment(new ConsumerPartitionAssignor.Assignment(
                List.of(new TopicPartition("t", 0), new TopicPartition("t", 1))));
            out.onNext(SyncGroupResponse.newBuilder().setError(error(ErrorCode.NONE)).setProtocolType(ConsumerProtocol.PROTOCOL_TYPE)
                .setProtocolName(request.getProtocolName()).setAssignment(ByteString.copyFrom(assignment)).build());
            out.onCompleted();
        }

        @Override
        public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> out) {
            if (rebalancing && request.getGenerationId() == 1) {
                if (rebalanceHeartbeats.incrementAndGet() > 1 && heldHeartbeat.compareAndSet(null, out)) {
                    return; // answered when the join arrives
                }
                out.onNext(HeartbeatResponse.newBuilder().setError(error(ErrorCode.REBALANCE_IN_PROGRESS)).build());
                out.onCompleted();
                return;
            }
            out.onNext(HeartbeatResponse.newBuilder().setError(error(ErrorCode.NONE)).build());
            out.onCompleted();
        }

        @Override
        public void leaveGroup(LeaveGroupRequest request, StreamObserver<LeaveGroupResponse> out) {
            out.onNext(LeaveGroupResponse.newBuilder().setError(error(ErrorCode.NONE)).build());
            out.onCompleted();
        }
    }
}
