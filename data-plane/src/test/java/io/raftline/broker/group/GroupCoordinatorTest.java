package io.raftline.broker.group;

import static io.raftline.broker.group.CoordinatorHarness.commit;
import static io.raftline.broker.group.CoordinatorHarness.commitError;
import static io.raftline.broker.group.CoordinatorHarness.fetch;
import static io.raftline.broker.group.CoordinatorHarness.heartbeat;
import static io.raftline.broker.group.CoordinatorHarness.joinNew;
import static io.raftline.broker.group.CoordinatorHarness.leave;
import static io.raftline.broker.group.CoordinatorHarness.rejoin;
import static io.raftline.broker.group.CoordinatorHarness.sync;
import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.group.DescribeGroupsRequest;
import io.raftline.protocol.group.DescribeGroupsResponse;
import io.raftline.protocol.group.JoinGroupResponse;
import io.raftline.protocol.group.SyncGroupResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The membership half of the coordinator, stepped by a manual clock. */
class GroupCoordinatorTest {

    private static final String G = "g1";

    /** Six partitions dealt out by the leader as "t-0,t-1"-style strings, two per member. */
    private static Map<String, String> twoEach(List<JoinGroupResponse.Member> members) {
        Map<String, String> out = new LinkedHashMap<>();
        int p = 0;
        for (JoinGroupResponse.Member m : members) {
            out.put(m.getMemberId(), "t-" + p++ + ",t-" + p++);
        }
        return out;
    }

    private static DescribeGroupsResponse.Group describe(GroupCoordinator c, String group) {
        return c.describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds(group).setIncludeOffsets(true).build()).getGroups(0);
    }

    /** Joins n members during the initial delay, then syncs; returns the join answers (leader first). */
    static List<JoinGroupResponse> stableGroup(CoordinatorHarness h, GroupCoordinator c, String group, int n) {
        List<CompletableFuture<JoinGroupResponse>> joins = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            joins.add(joinNew(c, group));
        }
        h.advance(h.config.initialRebalanceDelayMs());
        List<JoinGroupResponse> answers = new ArrayList<>();
        for (CompletableFuture<JoinGroupResponse> j : joins) {
            assertThat(j).isCompleted();
            answers.add(j.join());
        }
        answers.sort((a, b) -> Boolean.compare(!a.getLeader().equals(a.getMemberId()), !b.getLeader().equals(b.getMemberId())));
        JoinGroupResponse leader = answers.get(0);
        List<CompletableFuture<SyncGroupResponse>> syncs = new ArrayList<>();
        for (JoinGroupResponse a : answers.subList(1, answers.size())) {
            syncs.add(sync(c, group, a.getGenerationId(), a.getMemberId(), Map.of()));
        }
        syncs.add(sync(c, group, leader.getGenerationId(), leader.getMemberId(), twoEach(leader.getMembersList())));
        syncs.forEach(s -> assertThat(s.join().getError().getCode()).isEqualTo(ErrorCode.NONE));
        return answers;
    }

    @Test
    void threeMembersOnSixPartitionsGetTwoEach() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 42);
        List<CompletableFuture<JoinGroupResponse>> joins = List.of(joinNew(c, G), joinNew(c, G), joinNew(c, G));
        h.advance(2999);
        assertThat(joins).allMatch(j -> !j.isDone());
        h.advance(1);
        List<JoinGroupResponse> answers = joins.stream().map(CompletableFuture::join).toList();
        assertThat(answers).allSatisfy(a -> {
            assertThat(a.getError().getCode()).isEqualTo(ErrorCode.NONE);
            assertThat(a.getGenerationId()).isEqualTo(1);
            assertThat(a.getProtocolName()).isEqualTo("range");
            assertThat(a.getLeader()).isEqualTo(answers.get(0).getLeader());
        });
        JoinGroupResponse leader = answers.stream().filter(a -> a.getMemberId().equals(a.getLeader())).findFirst().orElseThrow();
        assertThat(leader.getMembersList()).hasSize(3);
        assertThat(answers.stream().filter(a -> a != leader)).allMatch(a -> a.getMembersCount() == 0);

        Map<String, String> plan = twoEach(leader.getMembersList());
        Map<String, CompletableFuture<SyncGroupResponse>> syncs = new HashMap<>();
        for (JoinGroupResponse a : answers) {
            if (a != leader) {
                syncs.put(a.getMemberId(), sync(c, G, 1, a.getMemberId(), Map.of()));
            }
        }
        assertThat(syncs.values()).allMatch(s -> !s.isDone());
        syncs.put(leader.getMemberId(), sync(c, G, 1, leader.getMemberId(), plan));
        syncs.forEach((member, s) -> {
            SyncGroupResponse r = s.join();
            assertThat(r.getError().getCode()).isEqualTo(ErrorCode.NONE);
            String got = r.getAssignment().toString(StandardCharsets.UTF_8);
            assertThat(got).isEqualTo(plan.get(member));
            assertThat(got.split(",")).hasSize(2);
        });
        DescribeGroupsResponse.Group d = describe(c, G);
        assertThat(d.getState()).isEqualTo("Stable");
        assertThat(d.getMembersList()).hasSize(3).allSatisfy(m -> assertThat(m.getClientHost()).isEqualTo("/127.0.0.1"));
        // The stored generation holds the assignment.
        int p = OffsetsTopic.partitionFor(G, CoordinatorHarness.PARTITIONS);
        GroupRecords.Decoded last = h.topic.records(p).get(h.topic.records(p).size() - 1);
        assertThat(last).isInstanceOfSatisfying(GroupRecords.GroupMetadata.class, gm -> {
            assertThat(gm.value().getGeneration()).isEqualTo(1);
            assertThat(gm.value().getMembersList()).hasSize(3).allMatch(m -> m.getAssignment().size() > 0);
        });
    }

    @Test
    void aMemberMissingItsSessionTriggersARebalance() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 1);
        List<JoinGroupResponse> members = stableGroup(h, c, G, 3);
        JoinGroupResponse silent = members.get(2);
        for (int i = 0; i < 3; i++) {
            h.advance(3000);
            assertThat(heartbeat(c, G, 1, members.get(0).getMemberId())).isEqualTo(ErrorCode.NONE);
            assertThat(heartbeat(c, G, 1, members.get(1).getMemberId())).isEqualTo(ErrorCode.NONE);
        }
        h.advance(1000); // 10 s since the silent member's last sign of life
        assertThat(heartbeat(c, G, 1, members.get(0).getMemberId())).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
        assertThat(heartbeat(c, G, 1, silent.getMemberId())).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        CompletableFuture<JoinGroupResponse> j0 = rejoin(c, G, members.get(0).getMemberId());
        assertThat(j0).isNotDone();
        CompletableFuture<JoinGroupResponse> j1 = rejoin(c, G, members.get(1).getMemberId());
        assertThat(j0.join().getGenerationId()).isEqualTo(2);
        assertThat(j1.join().getGenerationId()).isEqualTo(2);
        assertThat(j0.join().getLeader()).isEqualTo(members.get(0).getMemberId()); // the leader stays the leader
        assertThat(j0.join().getMembersList()).extracting(JoinGroupResponse.Member::getMemberId)
            .containsExactlyInAnyOrder(members.get(0).getMemberId(), members.get(1).getMemberId());
    }

    @Test
    void leavingTriggersARebalanceAndTheLastLeaverEmptiesTheGroup() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 2);
        List<JoinGroupResponse> members = stableGroup(h, c, G, 2);
        int generation = members.get(0).getGenerationId();
        assertThat(leave(c, G, members.get(1).getMemberId())).isEqualTo(ErrorCode.NONE);
        assertThat(describe(c, G).getState()).isEqualTo("PreparingRebalance");
        assertThat(leave(c, G, members.get(1).getMemberId())).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        JoinGroupResponse j = rejoin(c, G, members.get(0).getMemberId()).join();
        assertThat(j.getGenerationId()).isEqualTo(generation + 1);
        assertThat(j.getMembersList()).hasSize(1);
        assertThat(leave(c, G, members.get(0).getMemberId())).isEqualTo(ErrorCode.NONE);
        DescribeGroupsResponse.Group d = describe(c, G);
        assertThat(d.getState()).isEqualTo("Empty");
        assertThat(d.getGenerationId()).isEqualTo(generation + 2);
        assertThat(d.getMembersList()).isEmpty();
    }

    @Test
    void aMemberThatDoesNotRejoinInTimeIsDropped() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 3);
        List<JoinGroupResponse> members = stableGroup(h, c, G, 2);
        CompletableFuture<JoinGroupResponse> newcomer = joinNew(c, G);
        assertThat(describe(c, G).getState()).isEqualTo("PreparingRebalance");
        CompletableFuture<JoinGroupResponse> j0 = rejoin(c, G, members.get(0).getMemberId());
        // members.get(1) keeps heartbeating but never rejoins: the join phase waits for the rebalance timeout.
        for (int t = 0; t < CoordinatorHarness.REBALANCE_MS - 3000; t += 3000) {
            h.advance(3000);
            assertThat(heartbeat(c, G, 1, members.get(1).getMemberId())).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
        }
        assertThat(j0).isNotDone();
        h.advance(3000);
        assertThat(j0.join().getGenerationId()).isEqualTo(2);
        assertThat(newcomer.join().getGenerationId()).isEqualTo(2);
        assertThat(j0.join().getMembersList()).hasSize(2);
        assertThat(heartbeat(c, G, 1, members.get(1).getMemberId())).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
    }

    @Test
    void generationsFenceStaleMembers() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 4);
        List<JoinGroupResponse> members = stableGroup(h, c, G, 2);
        String a = members.get(0).getMemberId();
        String b = members.get(1).getMemberId();
        // A third member forces generation 2.
        CompletableFuture<JoinGroupResponse> newcomer = joinNew(c, G);
        CompletableFuture<JoinGroupResponse> ja = rejoin(c, G, a);
        // b still thinks it is in generation 1: its commit is accepted while the group prepares (it still owns its partitions)...
        assertThat(commitError(commit(c, G, 1, b, "t", 0, 5).join())).isEqualTo(ErrorCode.NONE);
        CompletableFuture<JoinGroupResponse> jb = rejoin(c, G, b);
        assertThat(ja.join().getGenerationId()).isEqualTo(2);
        assertThat(newcomer.join().getGenerationId()).isEqualTo(2);
        // ...but not once the generation moved on.
        assertThat(commitError(commit(c, G, 1, b, "t", 0, 6).join())).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
        assertThat(heartbeat(c, G, 1, b)).isEqualTo(ErrorCode.ILLEGAL_GENERATION);
        assertThat(sync(c, G, 1, b, Map.of()).join().getError().getCode()).isEqualTo(ErrorCode.ILLEGAL_GENERATION);
        String leader = jb.join().getLeader();
        sync(c, G, 2, leader, twoEach(ja.join().getMemberId().equals(leader) ? ja.join().getMembersList() : jb.join().getMembersList()));
        assertThat(commitError(commit(c, G, 1, b, "t", 0, 7).join())).isEqualTo(ErrorCode.ILLEGAL_GENERATION);
        assertThat(commitError(commit(c, G, 2, b, "t", 0, 8).join())).isEqualTo(ErrorCode.NONE);
        assertThat(fetch(c, G, "t", 0)).isEqualTo(8);
    }

    @Test
    void unknownAndStaleMemberIdsAreRefused() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 5);
        assertThat(rejoin(c, G, "nobody").join().getError().getCode()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        List<JoinGroupResponse> members = stableGroup(h, c, G, 1);
        assertThat(heartbeat(c, G, 1, "nobody")).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        assertThat(rejoin(c, G, "nobody").join().getError().getCode()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        assertThat(commitError(commit(c, G, 1, "nobody", "t", 0, 1).join())).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        assertThat(sync(c, G, 1, "nobody", Map.of()).join().getError().getCode()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        // A member id handed out but never used expires after the session timeout.
        JoinGroupResponse pending = c.joinGroup(CoordinatorHarness.joinRequest(G, ""), "h").join();
        assertThat(heartbeat(c, G, 1, members.get(0).getMemberId())).isEqualTo(ErrorCode.NONE);
        h.advance(CoordinatorHarness.SESSION_MS);
        assertThat(rejoin(c, G, pending.getMemberId()).join().getError().getCode()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
    }

    @Test
    void badJoinsAreRefusedAndChangeNothing() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 6);
        var tooShort = CoordinatorHarness.joinRequest(G, "").toBuilder().setSessionTimeoutMs(10).build();
        assertThat(c.joinGroup(tooShort, "h").join().getError().getCode()).isEqualTo(ErrorCode.INVALID_SESSION_TIMEOUT);
        var noProtocol = CoordinatorHarness.joinRequest(G, "").toBuilder().clearProtocols().build();
        assertThat(c.joinGroup(noProtocol, "h").join().getError().getCode()).isEqualTo(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(describe(c, G).getError().getCode()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
        stableGroup(h, c, G, 1);
        JoinGroupResponse other = c.joinGroup(CoordinatorHarness.joinRequest(G, "", "roundrobin"), "h").join();
        assertThat(other.getError().getCode()).isEqualTo(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(describe(c, G).getState()).isEqualTo("Stable");
    }

    @Test
    void theProtocolIsTheOneEveryMemberSupportsWithTheMostVotes() {
        CoordinatorHarness h = new CoordinatorHarness(1000);
        GroupCoordinator c = h.loadedCoordinator(1, 7);
        var a = joinNew(c, G, "cooperative-sticky", "range");
        var b = joinNew(c, G, "range", "cooperative-sticky");
        var d = joinNew(c, G, "range", "roundrobin", "cooperative-sticky");
        h.advance(1000);
        assertThat(List.of(a, b, d)).allSatisfy(f -> assertThat(f.join().getProtocolName()).isEqualTo("range"));
        JoinGroupResponse leader = List.of(a, b, d).stream().map(CompletableFuture::join)
            .filter(r -> r.getLeader().equals(r.getMemberId())).findFirst().orElseThrow();
        assertThat(leader.getMembersList()).allSatisfy(m ->
            assertThat(m.getMetadata().toString(StandardCharsets.UTF_8)).isEqualTo("sub:range"));
    }

    @Test
    void aLeaderThatNeverSyncsIsDroppedAfterTheRebalanceTimeout() {
        CoordinatorHarness h = new CoordinatorHarness(1000);
        GroupCoordinator c = h.loadedCoordinator(1, 8);
        var a = joinNew(c, G);
        var b = joinNew(c, G);
        h.advance(1000);
        JoinGroupResponse follower = a.join().getLeader().equals(a.join().getMemberId()) ? b.join() : a.join();
        String leader = follower.getLeader();
        CompletableFuture<SyncGroupResponse> waiting = sync(c, G, 1, follower.getMemberId(), Map.of());
        // The leader stays alive (its heartbeat thread runs) but never sends its assignment.
        for (int t = 0; t < CoordinatorHarness.REBALANCE_MS - 3000; t += 3000) {
            h.advance(3000);
            assertThat(heartbeat(c, G, 1, leader)).isEqualTo(ErrorCode.NONE);
        }
        assertThat(waiting).isNotDone();
        h.advance(3000);
        assertThat(waiting.join().getError().getCode()).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
        assertThat(describe(c, G).getMembersList()).extracting(DescribeGroupsResponse.Member::getMemberId)
            .containsExactly(follower.getMemberId());
        JoinGroupResponse again = rejoin(c, G, follower.getMemberId()).join();
        assertThat(again.getLeader()).isEqualTo(follower.getMemberId());
        assertThat(again.getGenerationId()).isEqualTo(2);
    }

    @Test
    void aMemberWhoLostItsJoinAnswerGetsItAgain() {
        CoordinatorHarness h = new CoordinatorHarness(0);
        GroupCoordinator c = h.loadedCoordinator(1, 9);
        JoinGroupResponse first = joinNew(c, G).join();
        assertThat(describe(c, G).getState()).isEqualTo("CompletingRebalance");
        JoinGroupResponse again = rejoin(c, G, first.getMemberId()).join();
        assertThat(again.getGenerationId()).isEqualTo(first.getGenerationId());
        assertThat(describe(c, G).getState()).isEqualTo("CompletingRebalance");
    }

    @Test
    void findCoordinatorAnswersFromTheMetadataAndAsksForTheTopicWhenMissing() {
        CoordinatorHarness h = new CoordinatorHarness(0);
        GroupCoordinator c = h.newCoordinator(1, 10);
        h.topic.setExists(false);
        var req = io.raftline.protocol.group.FindCoordinatorRequest.newBuilder().setGroupId(G).build();
        assertThat(c.findCoordinator(req).getError().getCode()).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
        assertThat(h.topic.ensureExistsCalls()).isEqualTo(1);
        assertThat(c.findCoordinator(req).getError().getCode()).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE); // no leader yet
        int p = OffsetsTopic.partitionFor(G, CoordinatorHarness.PARTITIONS);
        h.topic.setLeader(p, 2);
        h.topic.setEndpoint(2, "10.0.0.2", 9102);
        var ok = c.findCoordinator(req);
        assertThat(ok.getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(ok.getNodeId()).isEqualTo(2);
        assertThat(ok.getEndpoint().getPort()).isEqualTo(9102);
        // This broker does not lead that partition.
        assertThat(rejoin(c, G, "").join().getError().getCode()).isEqualTo(ErrorCode.NOT_COORDINATOR);
    }

    @Test
    void partitionForIsKafkasAbsModulo() {
        assertThat(OffsetsTopic.partitionFor("polygenelubricants", 50)).isEqualTo(0); // hashCode is Integer.MIN_VALUE
        assertThat("polygenelubricants".hashCode()).isEqualTo(Integer.MIN_VALUE);
        assertThat(OffsetsTopic.partitionFor("g1", 50)).isEqualTo(Math.abs("g1".hashCode()) % 50);
        assertThat(OffsetsTopic.partitionFor("", 50)).isEqualTo(0);
    }
}
