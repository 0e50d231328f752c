package io.raftline.broker.group;

import com.google.protobuf.ByteString;
import io.raftline.common.Uuid;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.group.GroupMetadataValue;
import io.raftline.protocol.group.HeartbeatRequest;
import io.raftline.protocol.group.JoinGroupRequest;
import io.raftline.protocol.group.JoinGroupResponse;
import io.raftline.protocol.group.LeaveGroupRequest;
import io.raftline.protocol.group.LeaveGroupResponse;
import io.raftline.protocol.group.SyncGroupRequest;
import io.raftline.protocol.group.SyncGroupResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic protocol's membership half: JoinGroup, SyncGroup, Heartbeat, LeaveGroup, and the timers that end a join
 * phase, a sync phase and a member's session. Every method runs under the coordinator's lock, on a group whose
 * partition this coordinator has loaded; futures are completed through {@link GroupCoordinator#complete} so that
 * nobody else's code runs under the lock.
 */
final class GroupMembership {

    private static final Logger LOG = LoggerFactory.getLogger(GroupMembership.class);

    private final GroupCoordinator coordinator;
    private final GroupConfig config;
    private final RandomGenerator random;

    GroupMembership(GroupCoordinator coordinator, GroupConfig config, RandomGenerator random) {
        this.coordinator = coordinator;
        this.config = config;
        this.random = random;
    }

    // ------------------------------------------------------------------------------------------------ JoinGroup

    void join(Group existing, JoinGroupRequest req, String clientHost, CompletableFuture<JoinGroupResponse> result) {
        String memberId = req.getMemberId();
        if (req.getSessionTimeoutMs() < config.minSessionTimeoutMs() || req.getSessionTimeoutMs() > config.maxSessionTimeoutMs()) {
            joinError(result, memberId, ErrorCode.INVALID_SESSION_TIMEOUT, "session.timeout.ms " + req.getSessionTimeoutMs()
                + " is outside [" + config.minSessionTimeoutMs() + ", " + config.maxSessionTimeoutMs() + "]");
            return;
        }
        Set<String> names = new HashSet<>();
        req.getProtocolsList().forEach(p -> names.add(p.getName()));
        if (req.getProtocolType().isEmpty() || names.isEmpty() || names.size() != req.getProtocolsCount()) {
            joinError(result, memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL, "a join needs a protocol type and distinct protocols");
            return;
        }
        Group group = existing;
        if (group == null) {
            if (!memberId.isEmpty()) {
                joinError(result, memberId, ErrorCode.UNKNOWN_MEMBER_ID, "group " + req.getGroupId() + " has no members");
                return;
            }
            group = coordinator.createGroup(req.getGroupId());
        }
        if (group.is(GroupState.DEAD) || group.deleting) {
            // The group is being deleted or unloaded: a retry reaches the group's next incarnation.
            joinError(result, memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE, "group " + group.groupId + " is being removed");
            return;
        }
        if (!group.supportsProtocols(req.getProtocolType(), names)) {
            joinError(result, memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL, "protocols " + names
                + " share nothing with the group's " + group.candidateProtocols());
            return;
        }
        if (memberId.isEmpty()) {
            String newId = (req.getClientId().isEmpty() ? "consumer" : req.getClientId()) + "-" + Uuid.random(random);
            Group g = group;
            g.pendingMembers.put(newId, coordinator.schedule(req.getSessionTimeoutMs(), () -> expirePending(g, newId)));
            joinError(result, newId, ErrorCode.MEMBER_ID_REQUIRED, "join again with this member id");
            return;
        }
        GroupScheduler.Task pending = group.pendingMembers.remove(memberId);
        if (pending != null) {
            pending.cancel();
            addMemberAndRebalance(group, req, clientHost, result);
            return;
        }
        Member member = group.members.get(memberId);
        if (member == null) {
            joinError(result, memberId, ErrorCode.UNKNOWN_MEMBER_ID, "member " + memberId + " is not in group " + group.groupId);
            return;
        }
        switch (group.state) {
            case PREPARING_REBALANCE -> updateMemberAndRebalance(group, member, req, clientHost, result, null);
            case COMPLETING_REBALANCE -> {
                if (member.sameProtocols(req.getProtocolsList())) {
                    // The member lost the answer to its join: give it the same one again.
                    coordinator.complete(result, joinResponse(group, member));
                } else {
                    updateMemberAndRebalance(group, member, req, clientHost, result, "member " + memberId + " changed its protocols");
                }
            }
            case STABLE -> {
                if (memberId.equals(group.leaderId) || !member.sameProtocols(req.getProtocolsList())) {
                    updateMemberAndRebalance(group, member, req, clientHost, result, "leader or changed member " + memberId + " rejoined");
                } else {
                    coordinator.complete(result, joinResponse(group, member));
                }
            }
            default -> joinError(result, memberId, ErrorCode.UNKNOWN_MEMBER_ID, "group " + group.groupId + " is " + group.state);
        }
    }

    private void addMemberAndRebalance(Group group, JoinGroupRequest req, String clientHost,
                                       CompletableFuture<JoinGroupResponse> result) {
        Member m = new Member(req.getMemberId(), req.getClientId(), clientHost, req.getSessionTimeoutMs(),
            rebalanceTimeout(req), List.copyOf(req.getProtocolsList()));
        if (group.members.isEmpty()) {
            group.protocolType = req.getProtocolType();
        }
        group.members.put(m.memberId, m);
        m.awaitingJoin = result;
        touch(group, m);
        if (group.is(GroupState.PREPARING_REBALANCE)) {
            long now = coordinator.nowMs();
            if (now < group.initialDelayUntilMs) {
                // More members of a new group are arriving: wait a little longer, within the rebalance timeout.
                group.initialDelayUntilMs = Math.min(now + config.initialRebalanceDelayMs(),
                    group.rebalanceStartMs + group.maxRebalanceTimeoutMs());
            }
            group.joinDeadlineMs = Math.max(group.joinDeadlineMs, now + m.rebalanceTimeoutMs);
            maybeCompleteJoin(group);
        } else {
            prepareRebalance(group, "member " + m.memberId + " joined");
        }
    }

    private void updateMemberAndRebalance(Group group, Member m, JoinGroupRequest req, String clientHost,
                                          CompletableFuture<JoinGroupResponse> result, String reason) {
        m.protocols = List.copyOf(req.getProtocolsList());
        m.sessionTimeoutMs = req.getSessionTimeoutMs();
        m.rebalanceTimeoutMs = rebalanceTimeout(req);
        m.clientId = req.getClientId();
        m.clientHost = clientHost;
        if (m.awaitingJoin != null && m.awaitingJoin != result) {
            coordinator.complete(m.awaitingJoin, errorJoinResponse(m.memberId, ErrorCode.REBALANCE_IN_PROGRESS,
                "superseded by a newer join of the same member"));
        }
        m.awaitingJoin = result;
        touch(group, m);
        if (group.is(GroupState.PREPARING_REBALANCE)) {
            maybeCompleteJoin(group);
        } else {
            prepareRebalance(group, reason);
        }
    }

    private static int rebalanceTimeout(JoinGroupRequest req) {
        return req.getRebalanceTimeoutMs() > 0 ? req.getRebalanceTimeoutMs() : req.getSessionTimeoutMs();
    }

    /** Starts a join phase: members have until the largest rebalance timeout among them to rejoin. */
    void prepareRebalance(Group group, String reason) {
        if (group.is(GroupState.COMPLETING_REBALANCE)) {
            cancelSyncPhase(group, ErrorCode.REBALANCE_IN_PROGRESS);
        }
        boolean wasEmpty = group.is(GroupState.EMPTY);
        boolean begins = wasEmpty || group.is(GroupState.STABLE);
        group.transitionTo(GroupState.PREPARING_REBALANCE, coordinator.wallMs());
        long now = coordinator.nowMs();
        group.rebalanceStartMs = now;
        if (begins) {
            group.rebalances++;
            group.rebalanceBeganMs = now;
        }
        group.joinDeadlineMs = now + group.maxRebalanceTimeoutMs();
        group.initialDelayUntilMs = wasEmpty ? Math.min(now + config.initialRebalanceDelayMs(), group.joinDeadlineMs) : now;
        LOG.info("group {} rebalances at generation {}: {}", group.groupId, group.generationId, reason);
        maybeCompleteJoin(group);
    }

    /** Ends the join phase if every member rejoined (after the initial delay) or the deadline passed; else re-arms its timer. */
    void maybeCompleteJoin(Group group) {
        if (!group.is(GroupState.PREPARING_REBALANCE)) {
            return;
        }
        long now = coordinator.nowMs();
        boolean delayOver = now >= group.initialDelayUntilMs;
        if (delayOver && (group.hasAllMembersJoined() || now >= group.joinDeadlineMs)) {
            completeJoin(group);
            return;
        }
        long next = delayOver ? group.joinDeadlineMs : Math.min(group.initialDelayUntilMs, group.joinDeadlineMs);
        if (group.joinTimer != null) {
            group.joinTimer.cancel();
        }
        group.joinTimer = coordinator.schedule(Math.max(0, next - now), () -> {
            if (coordinator.isCurrent(group)) {
                maybeCompleteJoin(group);
            }
        });
    }

    private void completeJoin(Group group) {
        if (group.joinTimer != null) {
            group.joinTimer.cancel();
            group.joinTimer = null;
        }
        for (Member m : new ArrayList<>(group.members.values())) {
            if (m.awaitingJoin == null) {
                LOG.info("group {}: member {} did not rejoin in time", group.groupId, m.memberId);
                removeMember(group, m, ErrorCode.UNKNOWN_MEMBER_ID);
            }
        }
        group.generationId++;
        if (group.members.isEmpty()) {
            group.protocolName = null;
            group.leaderId = null;
            group.transitionTo(GroupState.EMPTY, coordinator.wallMs());
            LOG.info("group {} is empty at generation {}", group.groupId, group.generationId);
            coordinator.persistGroup(group, code -> {
                if (code != ErrorCode.NONE) {
                    LOG.warn("group {}: could not store the empty generation {}: {}", group.groupId, group.generationId, code);
                }
            });
            return;
        }
        group.protocolName = group.selectProtocol();
        if (group.leaderId == null || !group.members.containsKey(group.leaderId)) {
            group.leaderId = group.members.keySet().iterator().next();
        }
        group.transitionTo(GroupState.COMPLETING_REBALANCE, coordinator.wallMs());
        for (Member m : group.members.values()) {
            CompletableFuture<JoinGroupResponse> f = m.awaitingJoin;
            m.awaitingJoin = null;
            m.assignment = new byte[0];
            touch(group, m);
            coordinator.complete(f, joinResponse(group, m));
        }
        LOG.info("group {} completed its join phase: generation {}, protocol {}, leader {}, {} members", group.groupId,
            group.generationId, group.protocolName, group.leaderId, group.members.size());
        int generation = group.generationId;
        group.syncTimer = coordinator.schedule(group.maxRebalanceTimeoutMs(), () -> {
            if (coordinator.isCurrent(group) && group.is(GroupState.COMPLETING_REBALANCE) && group.generationId == generation) {
                syncDeadlinePassed(group);
            }
        });
    }

    private JoinGroupResponse joinResponse(Group group, Member m) {
        JoinGroupResponse.Builder b = JoinGroupResponse.newBuilder()
            .setError(GroupCoordinator.error(ErrorCode.NONE, ""))
            .setGenerationId(group.generationId)
            .setProtocolType(group.protocolType)
            .setProtocolName(group.protocolName)
            .setLeader(group.leaderId)
            .setMemberId(m.memberId);
        if (m.memberId.equals(group.leaderId)) {
            for (Member other : group.members.values()) {
                b.addMembers(JoinGroupResponse.Member.newBuilder().setMemberId(other.memberId)
                    .setMetadata(ByteString.copyFrom(other.metadataFor(group.protocolName))));
            }
        }
        return b.build();
    }

    private void joinError(CompletableFuture<JoinGroupResponse> result, String memberId, ErrorCode code, String message) {
        coordinator.complete(result, errorJoinResponse(memberId, code, message));
    }

    private static JoinGroupResponse errorJoinResponse(String memberId, ErrorCode code, String message) {
        return JoinGroupResponse.newBuilder().setError(GroupCoordinator.error(code, message)).setGenerationId(-1)
            .setMemberId(memberId).build();
    }

    // ------------------------------------------------------------------------------------------------ SyncGroup

    void sync(Group group, SyncGroupRequest req, CompletableFuture<SyncGroupResponse> result) {
        if (group == null) {
            syncError(result, ErrorCode.UNKNOWN_MEMBER_ID, "group " + req.getGroupId() + " has no members");
            return;
        }
        if (group.is(GroupState.DEAD) || group.deleting) {
            syncError(result, ErrorCode.COORDINATOR_NOT_AVAILABLE, "group " + group.groupId + " is being removed");
            return;
        }
        Member m = group.members.get(req.getMemberId());
        if (m == null) {
            syncError(result, ErrorCode.UNKNOWN_MEMBER_ID, "member " + req.getMemberId() + " is not in group " + group.groupId);
            return;
        }
        if (req.getGenerationId() != group.generationId) {
            syncError(result, ErrorCode.ILLEGAL_GENERATION, "generation " + req.getGenerationId() + " is not the group's "
                + group.generationId);
            return;
        }
        if ((!req.getProtocolType().isEmpty() && !req.getProtocolType().equals(group.protocolType))
            || (!req.getProtocolName().isEmpty() && !req.getProtocolName().equals(group.protocolName))) {
            syncError(result, ErrorCode.INCONSISTENT_GROUP_PROTOCOL, "the group uses " + group.protocolType + "/" + group.protocolName);
            return;
        }
        switch (group.state) {
            case PREPARING_REBALANCE -> syncError(result, ErrorCode.REBALANCE_IN_PROGRESS, "the group is rebalancing");
            case STABLE -> {
                touch(group, m);
                coordinator.complete(result, syncResponse(group, m.assignment));
            }
            case COMPLETING_REBALANCE -> {
                if (m.awaitingSync != null && m.awaitingSync != result) {
                    coordinator.complete(m.awaitingSync, syncErrorResponse(ErrorCode.REBALANCE_IN_PROGRESS,
                        "superseded by a newer SyncGroup of the same member"));
                }
                m.awaitingSync = result;
                touch(group, m);
                if (m.memberId.equals(group.leaderId)) {
                    storeAssignment(group, req);
                }
            }
            default -> syncError(result, ErrorCode.UNKNOWN_MEMBER_ID, "group " + group.groupId + " is " + group.state);
        }
    }

    /** Persists the leader's assignment (members it left out get none), then hands every member its share. */
    private void storeAssignment(Group group, SyncGroupRequest req) {
        Map<String, byte[]> assignments = new HashMap<>();
        for (SyncGroupRequest.Assignment a : req.getAssignmentsList()) {
            if (group.members.containsKey(a.getMemberId())) {
                assignments.put(a.getMemberId(), a.getAssignment().toByteArray());
            }
        }
        int generation = group.generationId;
        GroupMetadataValue value = metadataValue(group, assignments);
        coordinator.persistGroup(group, value, code -> {
            if (!coordinator.isCurrent(group) || !group.is(GroupState.COMPLETING_REBALANCE) || group.generationId != generation) {
                return; // a newer join phase already answered every waiting member
            }
            if (code != ErrorCode.NONE) {
                LOG.warn("group {}: storing generation {} failed with {}; rebalancing", group.groupId, generation, code);
                cancelSyncPhase(group, code);
                prepareRebalance(group, "the assignment could not be stored");
                return;
            }
            if (group.syncTimer != null) {
                group.syncTimer.cancel();
                group.syncTimer = null;
            }
            for (Member m : group.members.values()) {
                m.assignment = assignments.getOrDefault(m.memberId, new byte[0]);
            }
            group.transitionTo(GroupState.STABLE, coordinator.wallMs());
            group.lastRebalanceMs = Math.max(0, coordinator.nowMs() - group.rebalanceBeganMs);
            for (Member m : group.members.values()) {
                if (m.awaitingSync != null) {
                    coordinator.complete(m.awaitingSync, syncResponse(group, m.assignment));
                    m.awaitingSync = null;
                }
            }
            LOG.info("group {} is stable at generation {}", group.groupId, generation);
        });
    }

    /** The group's record for {@code __consumer_offsets}, with {@code assignments} (null: the members' current ones). */
    GroupMetadataValue metadataValue(Group group, Map<String, byte[]> assignments) {
        GroupMetadataValue.Builder b = GroupMetadataValue.newBuilder()
            .setProtocolType(group.protocolType == null ? "" : group.protocolType)
            .setGeneration(group.generationId)
            .setProtocol(group.protocolName == null ? "" : group.protocolName)
            .setLeader(group.leaderId == null ? "" : group.leaderId)
            .setCurrentStateTimestampMs(group.stateTimestampMs);
        for (Member m : group.members.values()) {
            byte[] assignment = assignments == null ? m.assignment : assignments.getOrDefault(m.memberId, new byte[0]);
            byte[] subscription = group.protocolName == null ? null : m.metadataFor(group.protocolName);
            b.addMembers(GroupMetadataValue.Member.newBuilder().setMemberId(m.memberId).setClientId(m.clientId)
                .setClientHost(m.clientHost).setRebalanceTimeoutMs(m.rebalanceTimeoutMs).setSessionTimeoutMs(m.sessionTimeoutMs)
                .setSubscription(subscription == null ? ByteString.EMPTY : ByteString.copyFrom(subscription))
                .setAssignment(ByteString.copyFrom(assignment)));
        }
        return b.build();
    }

    private void syncDeadlinePassed(Group group) {
        List<Member> late = new ArrayList<>();
        for (Member m : group.members.values()) {
            if (m.awaitingSync == null || m.memberId.equals(group.leaderId)) {
                late.add(m);
            }
        }
        LOG.info("group {}: the sync phase of generation {} timed out; removing {}", group.groupId, group.generationId,
            late.stream().map(m -> m.memberId).toList());
        for (Member m : late) {
            removeMemberAndRebalance(group, m, "member " + m.memberId + " missed the sync deadline");
        }
    }

    /** Answers every member waiting for its assignment with {@code code} and forgets the pending assignment. */
    private void cancelSyncPhase(Group group, ErrorCode code) {
        if (group.syncTimer != null) {
            group.syncTimer.cancel();
            group.syncTimer = null;
        }
        for (Member m : group.members.values()) {
            m.assignment = new byte[0];
            if (m.awaitingSync != null) {
                coordinator.complete(m.awaitingSync, syncErrorResponse(code, "the group is rebalancing"));
                m.awaitingSync = null;
            }
        }
    }

    private static SyncGroupResponse syncResponse(Group group, byte[] assignment) {
        return SyncGroupResponse.newBuilder().setError(GroupCoordinator.error(ErrorCode.NONE, ""))
            .setProtocolType(group.protocolType).setProtocolName(group.protocolName)
            .setAssignment(ByteString.copyFrom(assignment)).build();
    }

    private void syncError(CompletableFuture<SyncGroupResponse> result, ErrorCode code, String message) {
        coordinator.complete(result, syncErrorResponse(code, message));
    }

    private static SyncGroupResponse syncErrorResponse(ErrorCode code, String message) {
        return SyncGroupResponse.newBuilder().setError(GroupCoordinator.error(code, message)).build();
    }

    // ------------------------------------------------------------------------------------------------ Heartbeat, leave

    ErrorCode heartbeat(Group group, HeartbeatRequest req) {
        if (group == null) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        if (group.is(GroupState.DEAD) || group.deleting) {
            return ErrorCode.COORDINATOR_NOT_AVAILABLE;
        }
        Member m = group.members.get(req.getMemberId());
        if (m == null) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        if (req.getGenerationId() != group.generationId) {
            return ErrorCode.ILLEGAL_GENERATION;
        }
        touch(group, m);
        return group.is(GroupState.PREPARING_REBALANCE) ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
    }

    LeaveGroupResponse leave(Group group, LeaveGroupRequest req) {
        LeaveGroupResponse.Builder b = LeaveGroupResponse.newBuilder().setError(GroupCoordinator.error(ErrorCode.NONE, ""));
        if (group == null || group.is(GroupState.DEAD)) {
            ErrorCode code = group == null ? ErrorCode.UNKNOWN_MEMBER_ID : ErrorCode.COORDINATOR_NOT_AVAILABLE;
            b.setError(GroupCoordinator.error(code, "group " + req.getGroupId() + " has no members"));
            req.getMembersList().forEach(m -> b.addMembers(LeaveGroupResponse.MemberResult.newBuilder()
                .setMemberId(m.getMemberId()).setError(GroupCoordinator.error(code, ""))));
            return b.build();
        }
        for (LeaveGroupRequest.Member leaving : req.getMembersList()) {
            ErrorCode code = ErrorCode.NONE;
            GroupScheduler.Task pending = group.pendingMembers.remove(leaving.getMemberId());
            Member m = group.members.get(leaving.getMemberId());
            if (pending != null) {
                pending.cancel();
                maybeCompleteJoin(group);
            } else if (m == null) {
                code = ErrorCode.UNKNOWN_MEMBER_ID;
            } else {
                LOG.info("group {}: member {} leaves ({})", group.groupId, m.memberId, leaving.getReason());
                removeMemberAndRebalance(group, m, "member " + m.memberId + " left");
            }
            b.addMembers(LeaveGroupResponse.MemberResult.newBuilder().setMemberId(leaving.getMemberId())
                .setError(GroupCoordinator.error(code, "")));
        }
        return b.build();
    }

    // ------------------------------------------------------------------------------------------------ sessions

    /** Records a sign of life and makes sure a session timer watches the member. */
    void touch(Group group, Member m) {
        m.lastHeartbeatMs = coordinator.nowMs();
        if (m.sessionTimer == null) {
            m.sessionTimer = coordinator.schedule(m.sessionTimeoutMs, () -> checkSession(group, m));
        }
    }

    private void checkSession(Group group, Member m) {
        m.sessionTimer = null;
        if (!coordinator.isCurrent(group) || group.members.get(m.memberId) != m) {
            return;
        }
        long now = coordinator.nowMs();
        long deadline = m.lastHeartbeatMs + m.sessionTimeoutMs;
        if (m.awaiting() || now < deadline) {
            long delay = m.awaiting() ? m.sessionTimeoutMs : deadline - now;
            m.sessionTimer = coordinator.schedule(delay, () -> checkSession(group, m));
            return;
        }
        LOG.info("group {}: member {} missed its session timeout of {} ms", group.groupId, m.memberId, m.sessionTimeoutMs);
        removeMemberAndRebalance(group, m, "member " + m.memberId + " missed its session timeout");
    }

    private void expirePending(Group group, String memberId) {
        if (coordinator.isCurrent(group) && group.pendingMembers.remove(memberId) != null) {
            maybeCompleteJoin(group);
        }
    }

    private void removeMemberAndRebalance(Group group, Member m, String reason) {
        removeMember(group, m, ErrorCode.UNKNOWN_MEMBER_ID);
        switch (group.state) {
            case STABLE, COMPLETING_REBALANCE -> prepareRebalance(group, reason);
            case PREPARING_REBALANCE -> maybeCompleteJoin(group);
            default -> {
            }
        }
    }

    private void removeMember(Group group, Member m, ErrorCode answer) {
        group.members.remove(m.memberId);
        if (m.sessionTimer != null) {
            m.sessionTimer.cancel();
            m.sessionTimer = null;
        }
        if (m.awaitingJoin != null) {
            coordinator.complete(m.awaitingJoin, errorJoinResponse(m.memberId, answer, "removed from the group"));
            m.awaitingJoin = null;
        }
        if (m.awaitingSync != null) {
            coordinator.complete(m.awaitingSync, syncErrorResponse(answer, "removed from the group"));
            m.awaitingSync = null;
        }
    }

    /** Restores a member read back from {@code __consumer_offsets}: it must heartbeat within its session from now. */
    void restore(Group group, Member m) {
        group.members.put(m.memberId, m);
        touch(group, m);
    }

    /** Drops everything the group waits on, answering waiting members with {@code code} (the partition moved). */
    void unload(Group group, ErrorCode code) {
        if (group.joinTimer != null) {
            group.joinTimer.cancel();
        }
        if (group.syncTimer != null) {
            group.syncTimer.cancel();
        }
        group.pendingMembers.values().forEach(GroupScheduler.Task::cancel);
        group.pendingMembers.clear();
        for (Member m : new ArrayList<>(group.members.values())) {
            removeMember(group, m, code);
        }
    }
}
