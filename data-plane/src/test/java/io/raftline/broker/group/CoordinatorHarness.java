package io.raftline.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.raftline.common.ManualTime;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.group.HeartbeatRequest;
import io.raftline.protocol.group.JoinGroupRequest;
import io.raftline.protocol.group.JoinGroupResponse;
import io.raftline.protocol.group.LeaveGroupRequest;
import io.raftline.protocol.group.OffsetCommitRequest;
import io.raftline.protocol.group.OffsetCommitResponse;
import io.raftline.protocol.group.OffsetFetchRequest;
import io.raftline.protocol.group.OffsetFetchResponse;
import io.raftline.protocol.group.SyncGroupRequest;
import io.raftline.protocol.group.SyncGroupResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A coordinator (or several, sharing one offsets topic as if replicated) driven by a manual clock: every timer fires
 * only when a test calls {@link #advance}, and loads run only when a test calls {@link #runLoads}.
 */
final class CoordinatorHarness {

    static final int PARTITIONS = 4;
    static final int SESSION_MS = 10_000;
    static final int REBALANCE_MS = 30_000;

    final ManualTime time = new ManualTime();
    final ManualScheduler scheduler = new ManualScheduler(time);
    final InMemoryOffsetsTopic topic;
    final QueuedExecutor loads = new QueuedExecutor();
    final GroupConfig config;

    /** Runs tasks only when told to. */
    static final class QueuedExecutor implements Executor {
        private final Queue<Runnable> tasks = new ArrayDeque<>();

        @Override
        public synchronized void execute(Runnable r) {
            tasks.add(r);
        }

        void runAll() {
            while (true) {
                Runnable r;
                synchronized (this) {
                    r = tasks.poll();
                }
                if (r == null) {
                    return;
                }
                r.run();
            }
        }
    }

    CoordinatorHarness(int initialDelayMs) {
        this(new InMemoryOffsetsTopic(PARTITIONS), initialDelayMs);
    }

    CoordinatorHarness(InMemoryOffsetsTopic topic, int initialDelayMs) {
        this.topic = topic;
        this.config = new GroupConfig(1000, 300_000, initialDelayMs, 60 * 60_000L, 60_000L, 5000, 4096);
    }

    GroupCoordinator newCoordinator(int brokerId, long seed) {
        GroupCoordinator c = new GroupCoordinator(brokerId, config, topic, time, scheduler, loads, new SplittableRandom(seed));
        c.startup();
        return c;
    }

    /** A coordinator that leads every partition, loaded. */
    GroupCoordinator loadedCoordinator(int brokerId, long seed) {
        GroupCoordinator c = newCoordinator(brokerId, seed);
        for (int p = 0; p < PARTITIONS; p++) {
            c.onBecomeLeader(p, 1);
        }
        runLoads();
        return c;
    }

    void runLoads() {
        loads.runAll();
    }

    void advance(long ms) {
        scheduler.advance(ms);
    }

    static JoinGroupRequest joinRequest(String group, String memberId, String... protocols) {
        JoinGroupRequest.Builder b = JoinGroupRequest.newBuilder().setGroupId(group).setMemberId(memberId)
            .setSessionTimeoutMs(SESSION_MS).setRebalanceTimeoutMs(REBALANCE_MS).setProtocolType("consumer")
            .setClientId("client");
        for (String p : protocols.length == 0 ? new String[] {"range"} : protocols) {
            b.addProtocols(JoinGroupRequest.Protocol.newBuilder().setName(p)
                .setMetadata(ByteString.copyFrom(("sub:" + p).getBytes(StandardCharsets.UTF_8))));
        }
        return b.build();
    }

    /** The first join: MEMBER_ID_REQUIRED, then the join with the given id, which waits for the join phase to end. */
    static CompletableFuture<JoinGroupResponse> joinNew(GroupCoordinator c, String group, String... protocols) {
        JoinGroupResponse first = c.joinGroup(joinRequest(group, "", protocols), "/127.0.0.1").join();
        assertThat(first.getError().getCode()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        assertThat(first.getMemberId()).startsWith("client-");
        return c.joinGroup(joinRequest(group, first.getMemberId(), protocols), "/127.0.0.1");
    }

    static CompletableFuture<JoinGroupResponse> rejoin(GroupCoordinator c, String group, String memberId) {
        return c.joinGroup(joinRequest(group, memberId), "/127.0.0.1");
    }

    static CompletableFuture<SyncGroupResponse> sync(GroupCoordinator c, String group, int generation, String memberId,
                                                     Map<String, String> assignments) {
        SyncGroupRequest.Builder b = SyncGroupRequest.newBuilder().setGroupId(group).setGenerationId(generation)
            .setMemberId(memberId);
        assignments.forEach((m, a) -> b.addAssignments(SyncGroupRequest.Assignment.newBuilder().setMemberId(m)
            .setAssignment(ByteString.copyFrom(a, StandardCharsets.UTF_8))));
        return c.syncGroup(b.build());
    }

    static ErrorCode heartbeat(GroupCoordinator c, String group, int generation, String memberId) {
        return c.heartbeat(HeartbeatRequest.newBuilder().setGroupId(group).setGenerationId(generation).setMemberId(memberId)
            .build()).getError().getCode();
    }

    static ErrorCode leave(GroupCoordinator c, String group, String memberId) {
        var r = c.leaveGroup(LeaveGroupRequest.newBuilder().setGroupId(group)
            .addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId(memberId).setReason("test")).build());
        return r.getError().getCode() != ErrorCode.NONE ? r.getError().getCode() : r.getMembers(0).getError().getCode();
    }

    static CompletableFuture<OffsetCommitResponse> commit(GroupCoordinator c, String group, int generation, String memberId,
                                                          String topic, int partition, long offset) {
        return c.commitOffsets(OffsetCommitRequest.newBuilder().setGroupId(group).setGenerationId(generation).setMemberId(memberId)
            .addTopics(OffsetCommitRequest.Topic.newBuilder().setName(topic).addPartitions(OffsetCommitRequest.Partition.newBuilder()
                .setPartition(partition).setCommittedOffset(offset).setCommittedLeaderEpoch(-1).setMetadata("m")))
            .build());
    }

    static ErrorCode commitError(OffsetCommitResponse r) {
        if (r.getError().getCode() != ErrorCode.NONE) {
            return r.getError().getCode();
        }
        return r.getTopics(0).getPartitions(0).getError().getCode();
    }

    /** The committed offset, -1 without one; fails on an error. */
    static long fetch(GroupCoordinator c, String group, String topic, int partition) {
        OffsetFetchResponse r = c.fetchOffsets(OffsetFetchRequest.newBuilder().setGroupId(group)
            .addTopics(OffsetFetchRequest.Topic.newBuilder().setName(topic).addPartitions(partition)).build());
        assertThat(r.getError().getCode()).isEqualTo(ErrorCode.NONE);
        return r.getTopics(0).getPartitions(0).getCommittedOffset();
    }

    static ErrorCode fetchError(GroupCoordinator c, String group) {
        return c.fetchOffsets(OffsetFetchRequest.newBuilder().setGroupId(group).build()).getError().getCode();
    }
}
