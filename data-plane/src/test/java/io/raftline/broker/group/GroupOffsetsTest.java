package io.raftline.broker.group;

import static io.raftline.broker.group.CoordinatorHarness.commit;
import static io.raftline.broker.group.CoordinatorHarness.commitError;
import static io.raftline.broker.group.CoordinatorHarness.fetch;
import static io.raftline.broker.group.CoordinatorHarness.fetchError;
import static io.raftline.broker.group.CoordinatorHarness.heartbeat;
import static io.raftline.broker.group.CoordinatorHarness.leave;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.google.protobuf.ByteString;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.group.ConsumerProtocolSubscription;
import io.raftline.protocol.group.DeleteGroupsRequest;
import io.raftline.protocol.group.DescribeGroupsRequest;
import io.raftline.protocol.group.DescribeGroupsResponse;
import io.raftline.protocol.group.JoinGroupRequest;
import io.raftline.protocol.group.JoinGroupResponse;
import io.raftline.protocol.group.ListGroupsRequest;
import io.raftline.protocol.group.OffsetCommitResponse;
import io.raftline.protocol.group.OffsetDeleteRequest;
import io.raftline.protocol.group.OffsetDeleteResponse;
import io.raftline.protocol.group.OffsetFetchRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Offsets: commit, fetch, loading after a leadership move, expiry, deletion. */
class GroupOffsetsTest {

    private static final String G = "g1";
    private static final int P = OffsetsTopic.partitionFor(G, CoordinatorHarness.PARTITIONS);

    private static DescribeGroupsResponse.Group describe(GroupCoordinator c, String group) {
        return c.describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds(group).setIncludeOffsets(true).build()).getGroups(0);
    }

    @Test
    void commitThenFetch() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 1);
        List<JoinGroupResponse> m = GroupCoordinatorTest.stableGroup(h, c, G, 2);
        assertThat(fetch(c, G, "t", 0)).isEqualTo(-1);
        assertThat(commitError(commit(c, G, 1, m.get(0).getMemberId(), "t", 0, 10).join())).isEqualTo(ErrorCode.NONE);
        assertThat(commitError(commit(c, G, 1, m.get(1).getMemberId(), "t", 1, 20).join())).isEqualTo(ErrorCode.NONE);
        assertThat(commitError(commit(c, G, 1, m.get(0).getMemberId(), "t", 0, 11).join())).isEqualTo(ErrorCode.NONE);
        assertThat(fetch(c, G, "t", 0)).isEqualTo(11);
        assertThat(fetch(c, G, "t", 1)).isEqualTo(20);
        var all = c.fetchOffsets(OffsetFetchRequest.newBuilder().setGroupId(G).build());
        assertThat(all.getTopicsList()).hasSize(1);
        assertThat(all.getTopics(0).getPartitionsList()).extracting(r -> r.getCommittedOffset()).containsExactly(11L, 20L);
        // Three commit records in the group's partition, in commit order.
        assertThat(h.topic.records(P).stream().filter(r -> r instanceof GroupRecords.OffsetCommit).count()).isEqualTo(3);
        h.topic.setHighWatermark("t", 0, 15);
        DescribeGroupsResponse.Group d = describe(c, G);
        assertThat(d.getOffsetsList()).extracting(DescribeGroupsResponse.Offset::getLogEndOffset).containsExactly(15L, -1L);
    }

    @Test
    void badCommitsAreRefusedWholeAndChangeNothing() {
        CoordinatorHarness h = new CoordinatorHarness(0);
        GroupCoordinator c = h.loadedCoordinator(1, 2);
        assertThat(commitError(commit(c, G, -1, "", "t", 0, -5).join())).isEqualTo(ErrorCode.INVALID_REQUEST);
        assertThat(commitError(commit(c, G, -1, "", "", 0, 5).join())).isEqualTo(ErrorCode.INVALID_REQUEST);
        assertThat(commitError(commit(c, "", -1, "", "t", 0, 5).join())).isEqualTo(ErrorCode.INVALID_REQUEST);
        assertThat(h.topic.records(P)).isEmpty();
        assertThat(fetch(c, G, "t", 0)).isEqualTo(-1);
    }

    @Test
    void commitsFromOutsideTheProtocolOnlyForGroupsWithoutMembers() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 3);
        // An admin resetting offsets of a group that does not exist yet creates it, Empty.
        assertThat(commitError(commit(c, G, -1, "", "t", 0, 7).join())).isEqualTo(ErrorCode.NONE);
        assertThat(describe(c, G).getState()).isEqualTo("Empty");
        assertThat(fetch(c, G, "t", 0)).isEqualTo(7);
        // A member id with no generation for an unknown group is refused.
        assertThat(commitError(commit(c, "other", 3, "m", "t", 0, 7).join())).isEqualTo(ErrorCode.ILLEGAL_GENERATION);
        List<JoinGroupResponse> m = GroupCoordinatorTest.stableGroup(h, c, G, 1);
        assertThat(commitError(commit(c, G, -1, "", "t", 0, 8).join())).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        assertThat(fetch(c, G, "t", 0)).isEqualTo(7);
        assertThat(leave(c, G, m.get(0).getMemberId())).isEqualTo(ErrorCode.NONE);
        assertThat(commitError(commit(c, G, -1, "", "t", 0, 9).join())).isEqualTo(ErrorCode.NONE);
        assertThat(fetch(c, G, "t", 0)).isEqualTo(9);
    }

    @Test
    void aFailedWriteIsNotCachedAndTellsTheClientWhatToDo() {
        CoordinatorHarness h = new CoordinatorHarness(0);
        GroupCoordinator c = h.loadedCoordinator(1, 4);
        assertThat(commitError(commit(c, G, -1, "", "t", 0, 1).join())).isEqualTo(ErrorCode.NONE);
        h.topic.failNextAppend(ErrorCode.NOT_ENOUGH_REPLICAS);
        assertThat(commitError(commit(c, G, -1, "", "t", 0, 2).join())).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
        h.topic.failNextAppend(ErrorCode.NOT_LEADER);
        assertThat(commitError(commit(c, G, -1, "", "t", 0, 3).join())).isEqualTo(ErrorCode.NOT_COORDINATOR);
        assertThat(fetch(c, G, "t", 0)).isEqualTo(1);
        // A write that never replicates times out after offsets.commit.timeout.ms.
        h.topic.holdAppends();
        CompletableFuture<OffsetCommitResponse> slow = commit(c, G, -1, "", "t", 0, 4);
        h.advance(h.config.offsetCommitTimeoutMs() - 1);
        assertThat(slow).isNotDone();
        h.advance(1);
        assertThat(commitError(slow.join())).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
        assertThat(fetch(c, G, "t", 0)).isEqualTo(1);
    }

    @Test
    void commitsCompletingOutOfLogOrderLeaveTheCacheAtTheLaterRecord() {
        CoordinatorHarness h = new CoordinatorHarness(0);
        GroupCoordinator c = h.loadedCoordinator(1, 11);
        assertThat(commitError(commit(c, G, -1, "", "t", 0, 5).join())).isEqualTo(ErrorCode.NONE);
        h.topic.holdAppends();
        CompletableFuture<OffsetCommitResponse> earlier = commit(c, G, -1, "", "t", 0, 7);
        CompletableFuture<OffsetCommitResponse> later = commit(c, G, -1, "", "t", 0, 9);
        // Replication acknowledges the later record first (completions on two threads, here in the bad order).
        h.topic.releaseAppendsInOrder(1, 0);
        assertThat(commitError(later.join())).isEqualTo(ErrorCode.NONE);
        assertThat(commitError(earlier.join())).isEqualTo(ErrorCode.NONE);

        assertThat(fetch(c, G, "t", 0)).as("the cache follows the log, where 9 is the last record").isEqualTo(9);
        GroupCoordinator reloaded = new CoordinatorHarness(h.topic, 0).loadedCoordinator(2, 12);
        assertThat(fetch(reloaded, G, "t", 0)).as("what a coordinator loading the log answers").isEqualTo(9);
    }

    @Test
    void theCacheKeepsTheCommitWhoseRecordIsLaterInTheLog() {
        CommittedOffset at3 = new CommittedOffset(50, -1, "", 0, 3);
        CommittedOffset at8 = new CommittedOffset(40, -1, "", 0, 8);
        // cached, stored -> kept
        Object[][] table = {
            {null, at3, at3},
            {at3, at8, at8},
            {at8, at3, at8},
        };
        for (Object[] row : table) {
            assertThat(CommittedOffset.latest((CommittedOffset) row[0], (CommittedOffset) row[1])).as("%s then %s", row[0], row[1])
                .isEqualTo(row[2]);
        }
    }

    @Test
    void aNewCoordinatorRebuildsItsCacheFromTheLogAndAnswersLoadInProgressMeanwhile() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator first = h.loadedCoordinator(1, 5);
        List<JoinGroupResponse> m = GroupCoordinatorTest.stableGroup(h, first, G, 2);
        String a = m.get(0).getMemberId();
        assertThat(commitError(commit(first, G, 1, a, "t", 0, 100).join())).isEqualTo(ErrorCode.NONE);
        assertThat(commitError(commit(first, G, 1, a, "t", 1, 200).join())).isEqualTo(ErrorCode.NONE);
        assertThat(commitError(commit(first, G, 1, a, "t", 0, 150).join())).isEqualTo(ErrorCode.NONE);
        assertThat(commitError(commit(first, "empty-group", -1, "", "u", 3, 33).join())).isEqualTo(ErrorCode.NONE);

        // Leadership of the partition moves from broker 1 to broker 2.
        first.onResign(P);
        assertThat(heartbeat(first, G, 1, a)).isEqualTo(ErrorCode.NOT_COORDINATOR);
        GroupCoordinator second = h.newCoordinator(2, 6);
        second.onBecomeLeader(P, 2);
        assertThat(fetchError(second, G)).isEqualTo(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(heartbeat(second, G, 1, a)).isEqualTo(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(second.listGroups(ListGroupsRequest.getDefaultInstance()).getError().getCode())
            .isEqualTo(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
        h.runLoads();

        assertThat(fetch(second, G, "t", 0)).isEqualTo(150);
        assertThat(fetch(second, G, "t", 1)).isEqualTo(200);
        DescribeGroupsResponse.Group d = describe(second, G);
        assertThat(d.getState()).isEqualTo("Stable");
        assertThat(d.getGenerationId()).isEqualTo(1);
        assertThat(d.getMembersList()).hasSize(2).allMatch(x -> x.getAssignment().size() > 0);
        // The members carry on with the new coordinator in their generation...
        assertThat(heartbeat(second, G, 1, a)).isEqualTo(ErrorCode.NONE);
        assertThat(commitError(commit(second, G, 1, a, "t", 0, 160).join())).isEqualTo(ErrorCode.NONE);
        // ...and one that does not heartbeat is dropped after its session timeout.
        h.advance(CoordinatorHarness.SESSION_MS - 1000);
        assertThat(heartbeat(second, G, 1, a)).isEqualTo(ErrorCode.NONE);
        h.advance(1000);
        assertThat(heartbeat(second, G, 1, a)).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
        int otherPartition = OffsetsTopic.partitionFor("empty-group", CoordinatorHarness.PARTITIONS);
        if (otherPartition == P) {
            assertThat(fetch(second, "empty-group", "u", 3)).isEqualTo(33);
        }
        // A stale leadership notice changes nothing.
        second.onBecomeLeader(P, 1);
        assertThat(fetch(second, G, "t", 0)).isEqualTo(160);
    }

    @Test
    void aWriteThatCompletesAfterResignationAnswersNotCoordinator() {
        CoordinatorHarness h = new CoordinatorHarness(0);
        GroupCoordinator c = h.loadedCoordinator(1, 7);
        h.topic.holdAppends();
        CompletableFuture<OffsetCommitResponse> f = commit(c, G, -1, "", "t", 0, 5);
        c.onResign(P);
        h.topic.releaseAppends();
        assertThat(commitError(f.join())).isEqualTo(ErrorCode.NOT_COORDINATOR);
    }

    @Test
    void aPartitionThatCannotBeReadStaysUnavailable() {
        CoordinatorHarness h = new CoordinatorHarness(0);
        // A record this broker cannot read: a key with an unknown version.
        h.topic.append(P, GroupRecords.batch(List.of(new GroupRecords.KeyValue(new byte[] {0, 9, 1}, new byte[] {0, 1})), 0));
        GroupCoordinator c = h.newCoordinator(1, 8);
        c.onBecomeLeader(P, 1);
        h.runLoads();
        assertThat(fetchError(c, G)).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }

    @Test
    void offsetsOfEmptyGroupsExpireAfterTheRetention() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 9);
        long retention = h.config.offsetsRetentionMs();
        List<JoinGroupResponse> m = GroupCoordinatorTest.stableGroup(h, c, G, 1);
        String a = m.get(0).getMemberId();
        assertThat(commitError(commit(c, G, 1, a, "t", 0, 10).join())).isEqualTo(ErrorCode.NONE);
        // A group with members keeps its offsets however old they are.
        for (long t = 0; t < retention + 120_000; t += 5000) {
            h.advance(5000);
            assertThat(heartbeat(c, G, 1, a)).isEqualTo(ErrorCode.NONE);
        }
        assertThat(fetch(c, G, "t", 0)).isEqualTo(10);
        assertThat(leave(c, G, a)).isEqualTo(ErrorCode.NONE);
        assertThat(describe(c, G).getState()).isEqualTo("Empty");
        // Retention counts from when the group became empty.
        h.advance(retention - 60_000);
        assertThat(fetch(c, G, "t", 0)).isEqualTo(10);
        h.advance(120_000);
        assertThat(fetch(c, G, "t", 0)).isEqualTo(-1);
        assertThat(describe(c, G).getError().getCode()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
        List<GroupRecords.Decoded> log = h.topic.records(P);
        assertThat(log.get(log.size() - 2)).isEqualTo(new GroupRecords.OffsetCommit(G, "t", 0, null));
        assertThat(log.get(log.size() - 1)).isEqualTo(new GroupRecords.GroupMetadata(G, null));
        // A coordinator loading the log agrees.
        GroupCoordinator next = h.newCoordinator(2, 10);
        next.onBecomeLeader(P, 2);
        h.runLoads();
        assertThat(describe(next, G).getError().getCode()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
    }

    @Test
    void deletingAGroupWritesTombstones() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 11);
        List<JoinGroupResponse> m = GroupCoordinatorTest.stableGroup(h, c, G, 1);
        String a = m.get(0).getMemberId();
        assertThat(commitError(commit(c, G, 1, a, "t", 0, 10).join())).isEqualTo(ErrorCode.NONE);
        assertThat(commitError(commit(c, G, 1, a, "t", 1, 11).join())).isEqualTo(ErrorCode.NONE);
        DeleteGroupsRequest del = DeleteGroupsRequest.newBuilder().addGroupIds(G).addGroupIds("unknown").build();
        var refused = c.deleteGroups(del).join();
        assertThat(refused.getResults(0).getError().getCode()).isEqualTo(ErrorCode.NON_EMPTY_GROUP);
        assertThat(refused.getResults(1).getError().getCode()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
        assertThat(leave(c, G, a)).isEqualTo(ErrorCode.NONE);
        var done = c.deleteGroups(del).join();
        assertThat(done.getResults(0).getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(fetch(c, G, "t", 0)).isEqualTo(-1);
        assertThat(c.listGroups(ListGroupsRequest.getDefaultInstance()).getGroupsList()).isEmpty();
        List<GroupRecords.Decoded> log = h.topic.records(P);
        assertThat(log.subList(log.size() - 3, log.size())).containsExactly(
            new GroupRecords.OffsetCommit(G, "t", 0, null), new GroupRecords.OffsetCommit(G, "t", 1, null),
            new GroupRecords.GroupMetadata(G, null));
        GroupCoordinator next = h.newCoordinator(2, 12);
        next.onBecomeLeader(P, 2);
        h.runLoads();
        assertThat(fetch(next, G, "t", 1)).isEqualTo(-1);
        assertThat(describe(next, G).getError().getCode()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
    }

    private static OffsetDeleteRequest deleteOffsets(String group, String topic, int... partitions) {
        OffsetDeleteRequest.Topic.Builder t = OffsetDeleteRequest.Topic.newBuilder().setName(topic);
        for (int p : partitions) {
            t.addPartitions(p);
        }
        return OffsetDeleteRequest.newBuilder().setGroupId(group).addTopics(t).build();
    }

    /** Each partition's error as "topic-partition:CODE", in request order. */
    private static List<String> partitionErrors(OffsetDeleteResponse r) {
        List<String> out = new java.util.ArrayList<>();
        r.getTopicsList().forEach(t -> t.getPartitionsList().forEach(p -> out.add(t.getName() + "-" + p.getPartition() + ":"
            + p.getError().getCode())));
        return out;
    }

    /** A member of a consumer group subscribed to {@code topics}, in Raftline's encoding of the subscription. */
    private static JoinGroupResponse joinSubscribed(CoordinatorHarness h, GroupCoordinator c, String group, String... topics) {
        byte[] body = ConsumerProtocolSubscription.newBuilder().addAllTopics(List.of(topics)).setGenerationId(-1).build()
            .toByteArray();
        byte[] metadata = java.nio.ByteBuffer.allocate(2 + body.length).putShort((short) 0).put(body).array();
        JoinGroupRequest join = CoordinatorHarness.joinRequest(group, "").toBuilder().clearProtocols()
            .addProtocols(JoinGroupRequest.Protocol.newBuilder().setName("range").setMetadata(ByteString.copyFrom(metadata)))
            .build();
        String id = c.joinGroup(join, "/127.0.0.1").join().getMemberId();
        CompletableFuture<JoinGroupResponse> joined = c.joinGroup(join.toBuilder().setMemberId(id).build(), "/127.0.0.1");
        h.advance(h.config.initialRebalanceDelayMs());
        JoinGroupResponse r = joined.join();
        assertThat(CoordinatorHarness.sync(c, group, r.getGenerationId(), id, java.util.Map.of(id, "")).join().getError().getCode())
            .isEqualTo(ErrorCode.NONE);
        return r;
    }

    @Test
    void deletingOffsetsRefusesSubscribedTopicsWhileMembersRemainAndWritesTombstones() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 21);
        JoinGroupResponse m = joinSubscribed(h, c, G, "read");
        String a = m.getMemberId();
        for (String topic : List.of("read", "done")) {
            for (int p = 0; p < 2; p++) {
                assertThat(commitError(commit(c, G, m.getGenerationId(), a, topic, p, 10 + p).join())).isEqualTo(ErrorCode.NONE);
            }
        }
        assertThat(c.deleteOffsets(deleteOffsets("unknown", "done", 0)).join().getError().getCode())
            .isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
        // "read" is subscribed: refused on its own; "done" goes; a partition without an offset is answered NONE
        OffsetDeleteResponse mixed = c.deleteOffsets(deleteOffsets(G, "read", 0).toBuilder()
            .addTopics(OffsetDeleteRequest.Topic.newBuilder().setName("done").addPartitions(1).addPartitions(7)).build()).join();
        assertThat(mixed.getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(partitionErrors(mixed)).containsExactly("read-0:GROUP_SUBSCRIBED_TO_TOPIC", "done-1:NONE", "done-7:NONE");
        assertThat(fetch(c, G, "read", 0)).isEqualTo(10);
        assertThat(fetch(c, G, "done", 0)).isEqualTo(10);
        assertThat(fetch(c, G, "done", 1)).isEqualTo(-1);
        List<GroupRecords.Decoded> log = h.topic.records(P);
        assertThat(log.get(log.size() - 1)).isEqualTo(new GroupRecords.OffsetCommit(G, "done", 1, null));

        // empty: any topic's offsets go
        assertThat(leave(c, G, a)).isEqualTo(ErrorCode.NONE);
        assertThat(partitionErrors(c.deleteOffsets(deleteOffsets(G, "read", 0, 1)).join()))
            .containsExactly("read-0:NONE", "read-1:NONE");
        // a coordinator loading the log agrees: only done-0 is left
        GroupCoordinator next = h.newCoordinator(2, 22);
        next.onBecomeLeader(P, 2);
        h.runLoads();
        assertThat(describe(next, G).getOffsetsList()).extracting(o -> o.getTopic() + "-" + o.getPartition() + "@"
            + o.getCommittedOffset()).containsExactly("done-0@10");
    }

    @Test
    void deletingOffsetsOfAGroupWhoseSubscriptionsCannotBeReadIsRefusedWhileItHasMembers() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 23);
        // the harness's members send metadata that is not a consumer subscription
        List<JoinGroupResponse> m = GroupCoordinatorTest.stableGroup(h, c, G, 1);
        String a = m.get(0).getMemberId();
        assertThat(commitError(commit(c, G, 1, a, "t", 0, 5).join())).isEqualTo(ErrorCode.NONE);
        assertThat(c.deleteOffsets(deleteOffsets(G, "t", 0)).join().getError().getCode()).isEqualTo(ErrorCode.NON_EMPTY_GROUP);
        assertThat(fetch(c, G, "t", 0)).isEqualTo(5);
        assertThat(leave(c, G, a)).isEqualTo(ErrorCode.NONE);
        assertThat(c.deleteOffsets(deleteOffsets(G, "t", 0)).join().getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(fetch(c, G, "t", 0)).isEqualTo(-1);
    }

    @Test
    void listGroupsFiltersByState() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 13);
        GroupCoordinatorTest.stableGroup(h, c, "busy", 1);
        assertThat(commitError(commit(c, "idle", -1, "", "t", 0, 1).join())).isEqualTo(ErrorCode.NONE);
        var all = c.listGroups(ListGroupsRequest.getDefaultInstance());
        assertThat(all.getGroupsList()).extracting(g -> g.getGroupId() + ":" + g.getState())
            .containsExactly("busy:Stable", "idle:Empty");
        var empty = c.listGroups(ListGroupsRequest.newBuilder().addStatesFilter("Empty").build());
        assertThat(empty.getGroupsList()).extracting(g -> g.getGroupId()).containsExactly("idle");
        assertThat(all.getCoordinatorId()).isEqualTo(1);
        assertThat(c.memberCounts()).isEqualTo(java.util.Map.of("busy", 1, "idle", 0));
    }

    @Test
    void snapshotListsLoadedGroupsWithMembersAndCommittedOffsets() {
        CoordinatorHarness h = new CoordinatorHarness(3000);
        GroupCoordinator c = h.loadedCoordinator(1, 14);
        GroupCoordinatorTest.stableGroup(h, c, "busy", 1);
        assertThat(commitError(commit(c, "idle", -1, "", "t", 0, 7).join())).isEqualTo(ErrorCode.NONE);
        assertThat(commitError(commit(c, "idle", -1, "", "t", 1, 3).join())).isEqualTo(ErrorCode.NONE);
        List<GroupCoordinator.GroupSnapshot> snapshot = c.snapshot();
        assertThat(snapshot).extracting(GroupCoordinator.GroupSnapshot::groupId, GroupCoordinator.GroupSnapshot::members,
            GroupCoordinator.GroupSnapshot::committed, GroupCoordinator.GroupSnapshot::state,
            GroupCoordinator.GroupSnapshot::rebalances).containsExactly(
            tuple("busy", 1, List.of(), "Stable", 1L),
            tuple("idle", 0, List.of(new GroupCoordinator.CommittedPosition("t", 0, 7),
                new GroupCoordinator.CommittedPosition("t", 1, 3)), "Empty", 0L));
        assertThat(snapshot.get(0).lastRebalanceMs()).as("the busy group's one rebalance, timed").isNotNegative();
        assertThat(snapshot.get(1).lastRebalanceMs()).as("the idle group never rebalanced").isEqualTo(-1);
    }
}
