package io.raftline.broker.group;

import com.google.protobuf.ByteString;
import io.raftline.common.Time;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.HostPort;
import io.raftline.protocol.group.DeleteGroupsRequest;
import io.raftline.protocol.group.DeleteGroupsResponse;
import io.raftline.protocol.group.DescribeGroupsRequest;
import io.raftline.protocol.group.DescribeGroupsResponse;
import io.raftline.protocol.group.FindCoordinatorRequest;
import io.raftline.protocol.group.FindCoordinatorResponse;
import io.raftline.protocol.group.GroupMetadataValue;
import io.raftline.protocol.group.HeartbeatRequest;
import io.raftline.protocol.group.HeartbeatResponse;
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
import io.raftline.protocol.group.SyncGroupResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group coordinator of one broker: it serves the groups whose {@code __consumer_offsets} partition this broker
 * leads. It keeps every such group's members and committed offsets in memory, and writes every change that must
 * survive a move of the coordinator (assignments, empty generations, offsets, tombstones) to that partition first.
 *
 * <h2>Group states</h2>
 * <pre>
 * from                 to                   when
 * (none)               Empty                a member asks to join an unknown group, or a commit from outside the protocol
 * Empty                PreparingRebalance   a member joins
 * PreparingRebalance   CompletingRebalance  every member rejoined (after group.initial.rebalance.delay.ms for a group that
 *                                           was empty), or the join deadline (largest rebalance timeout) passed; the
 *                                           generation goes up, the coordinator picks the protocol and the leader
 * PreparingRebalance   Empty                the join deadline passed with no member left (generation goes up, stored)
 * CompletingRebalance  Stable               the leader's assignment is stored; every member gets its share
 * CompletingRebalance  PreparingRebalance   a member joins, changes, leaves or misses its session; the leader's
 *                                           SyncGroup misses the sync deadline; storing the assignment fails
 * Stable               PreparingRebalance   a new member or the leader joins, a member changes its protocols, leaves,
 *                                           or misses its session
 * Empty                Dead                 its offsets expired (offsets.retention.minutes), or it was deleted
 * any                  Dead                 this broker stopped leading the group's partition (the group is dropped)
 * </pre>
 * Generation ids fence members: Heartbeat, SyncGroup and OffsetCommit from another generation get ILLEGAL_GENERATION,
 * from an unknown member UNKNOWN_MEMBER_ID. Loaded groups with members come back Stable and must heartbeat within
 * their session timeout.
 *
 * <h2>Threads</h2>
 * One lock guards all state. RPC threads, timer tasks ({@link GroupScheduler}), the loader ({@code loadExecutor}) and
 * append completions take it; futures handed to callers and the follow-ups of appends run after it is released, so no
 * caller code ever runs under the lock. {@link OffsetsTopic#append} is called under the lock, which keeps the log in
 * the order of the decisions; it must not block.
 */
public final class GroupCoordinator {

    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);

    private enum LoadState { LOADING, LOADED, FAILED }

    /** A partition of {@code __consumer_offsets} this broker leads, at a leader epoch. */
    private static final class OwnedPartition {
        final int partition;
        final int epoch;
        LoadState state = LoadState.LOADING;

        OwnedPartition(int partition, int epoch) {
            this.partition = partition;
            this.epoch = epoch;
        }
    }

    private final int brokerId;
    private final GroupConfig config;
    private final OffsetsTopic topic;
    private final int partitionCount;
    private final Time time;
    private final GroupScheduler scheduler;
    private final Executor loadExecutor;
    private final GroupMembership membership;
    private final GroupOffsets offsets;

    private final ReentrantLock lock = new ReentrantLock();
    /** Actions to run once the outermost holder releases the lock; guarded by the lock. */
    private final List<Runnable> afterUnlock = new ArrayList<>();
    private final Map<Integer, OwnedPartition> owned = new HashMap<>();
    private final Map<String, Group> groups = new HashMap<>();
    private GroupScheduler.Task expiryTimer;
    private boolean shutdown;

    /**
     * @param loadExecutor runs the reading of a partition after {@link #onBecomeLeader}
     * @param random       the source of member ids (seeded in tests)
     */
    public GroupCoordinator(int brokerId, GroupConfig config, OffsetsTopic topic, Time time, GroupScheduler scheduler,
                            Executor loadExecutor, RandomGenerator random) {
        this.brokerId = brokerId;
        this.config = config;
        this.topic = topic;
        this.partitionCount = topic.partitionCount();
        this.time = time;
        this.scheduler = scheduler;
        this.loadExecutor = loadExecutor;
        this.membership = new GroupMembership(this, config, random);
        this.offsets = new GroupOffsets(this, config, time, membership);
    }

    /** Starts the periodic expiry of offsets. */
    public void startup() {
        run(() -> expiryTimer = schedule(config.offsetsRetentionCheckIntervalMs(), this::expireOffsetsAndReschedule));
    }

    /** Drops every group, answering waiting members NOT_COORDINATOR; later calls answer NOT_COORDINATOR. */
    public void shutdown() {
        run(() -> {
            shutdown = true;
            if (expiryTimer != null) {
                expiryTimer.cancel();
            }
            for (Integer p : new ArrayList<>(owned.keySet())) {
                unloadPartition(p);
            }
            owned.clear();
        });
    }

    // ------------------------------------------------------------------------------------------------ leadership

    /**
     * This broker became leader of {@code __consumer_offsets} partition {@code offsetsPartition} at
     * {@code leaderEpoch}: it reads the partition on the load executor and serves its groups once done (until then,
     * COORDINATOR_LOAD_IN_PROGRESS). A repeated call for the same or an older epoch does nothing.
     */
    public void onBecomeLeader(int offsetsPartition, int leaderEpoch) {
        checkPartition(offsetsPartition);
        run(() -> {
            if (shutdown) {
                return;
            }
            OwnedPartition current = owned.get(offsetsPartition);
            if (current != null && current.epoch >= leaderEpoch) {
                return;
            }
            if (current != null) {
                unloadPartition(offsetsPartition);
            }
            OwnedPartition op = new OwnedPartition(offsetsPartition, leaderEpoch);
            owned.put(offsetsPartition, op);
            LOG.info("loading groups of {}-{} at leader epoch {}", OffsetsTopic.NAME, offsetsPartition, leaderEpoch);
            afterUnlock.add(() -> loadExecutor.execute(() -> load(op)));
        });
    }

    /** This broker no longer leads {@code offsetsPartition}: its groups are dropped, waiting members told NOT_COORDINATOR. */
    public void onResign(int offsetsPartition) {
        checkPartition(offsetsPartition);
        run(() -> {
            if (owned.containsKey(offsetsPartition)) {
                LOG.info("unloading groups of {}-{}", OffsetsTopic.NAME, offsetsPartition);
                unloadPartition(offsetsPartition);
                owned.remove(offsetsPartition);
            }
        });
    }

    private void checkPartition(int p) {
        if (p < 0 || p >= partitionCount) {
            throw new IllegalArgumentException(OffsetsTopic.NAME + " has no partition " + p + " (it has " + partitionCount + ")");
        }
    }

    private void load(OwnedPartition op) {
        GroupLoader loader = new GroupLoader();
        long startMs = time.hiResMilliseconds();
        try {
            topic.readAll(op.partition, 0L, loader::accept);
        } catch (RuntimeException e) {
            LOG.error("loading {}-{} failed; its groups stay unavailable until the next leadership change",
                OffsetsTopic.NAME, op.partition, e);
            run(() -> {
                if (owned.get(op.partition) == op) {
                    op.state = LoadState.FAILED;
                }
            });
            return;
        }
        run(() -> {
            if (owned.get(op.partition) != op) {
                return; // resigned, or a newer epoch is loading
            }
            for (Map.Entry<String, GroupLoader.LoadedGroup> e : loader.groups().entrySet()) {
                install(op.partition, e.getKey(), e.getValue());
            }
            op.state = LoadState.LOADED;
            LOG.info("loaded {} groups ({} records) of {}-{} in {} ms", loader.groups().size(), loader.recordCount(),
                OffsetsTopic.NAME, op.partition, time.hiResMilliseconds() - startMs);
        });
    }

    private void install(int partition, String groupId, GroupLoader.LoadedGroup loaded) {
        Group g = new Group(groupId, partition, time.milliseconds());
        g.offsets.putAll(loaded.offsets);
        GroupMetadataValue v = loaded.metadata;
        if (v != null) {
            g.generationId = v.getGeneration();
            g.protocolType = v.getProtocolType().isEmpty() ? null : v.getProtocolType();
            g.protocolName = v.getProtocol().isEmpty() ? null : v.getProtocol();
            g.leaderId = v.getLeader().isEmpty() ? null : v.getLeader();
            g.stateTimestampMs = v.getCurrentStateTimestampMs();
        } else {
            g.stateTimestampMs = loaded.offsets.values().stream().mapToLong(CommittedOffset::commitTimestampMs).max().orElse(0L);
        }
        groups.put(groupId, g);
        if (v != null && v.getMembersCount() > 0 && g.protocolName != null) {
            // A stored generation with members: it was Stable when stored.
            g.state = GroupState.STABLE;
            for (GroupMetadataValue.Member sm : v.getMembersList()) {
                Member m = new Member(sm.getMemberId(), sm.getClientId(), sm.getClientHost(), sm.getSessionTimeoutMs(),
                    sm.getRebalanceTimeoutMs(), List.of(JoinGroupRequest.Protocol.newBuilder().setName(g.protocolName)
                        .setMetadata(sm.getSubscription()).build()));
                m.assignment = sm.getAssignment().toByteArray();
                membership.restore(g, m);
            }
        }
    }

    private void unloadPartition(int partition) {
        for (Group g : new ArrayList<>(groups.values())) {
            if (g.offsetsPartition == partition) {
                membership.unload(g, ErrorCode.NOT_COORDINATOR);
                g.state = GroupState.DEAD;
                groups.remove(g.groupId);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ RPCs

    /** Any broker answers: the leader of the group's partition, from the metadata image. */
    public FindCoordinatorResponse findCoordinator(FindCoordinatorRequest req) {
        FindCoordinatorResponse.Builder b = FindCoordinatorResponse.newBuilder();
        if (req.getGroupId().isEmpty()) {
            return b.setError(error(ErrorCode.INVALID_REQUEST, "a group id is required")).setNodeId(-1).build();
        }
        if (!topic.exists()) {
            topic.ensureExists().whenComplete((v, e) -> {
                if (e != null) {
                    LOG.warn("could not have {} created: {}", OffsetsTopic.NAME, e.toString());
                }
            });
            return b.setError(error(ErrorCode.COORDINATOR_NOT_AVAILABLE, OffsetsTopic.NAME + " is being created")).setNodeId(-1).build();
        }
        int p = OffsetsTopic.partitionFor(req.getGroupId(), partitionCount);
        OptionalInt leader = topic.leaderOf(p);
        Optional<HostPort> endpoint = leader.isPresent() ? topic.brokerEndpoint(leader.getAsInt()) : Optional.empty();
        if (endpoint.isEmpty()) {
            return b.setError(error(ErrorCode.COORDINATOR_NOT_AVAILABLE, OffsetsTopic.NAME + "-" + p + " has no live leader"))
                .setNodeId(-1).build();
        }
        return b.setError(error(ErrorCode.NONE, "")).setNodeId(leader.getAsInt()).setEndpoint(endpoint.get()).build();
    }

    /**
     * JoinGroup; the answer comes when the join phase ends. {@code clientHost} is the member's address as the
     * transport saw it (for DescribeGroups).
     */
    public CompletableFuture<JoinGroupResponse> joinGroup(JoinGroupRequest req, String clientHost) {
        CompletableFuture<JoinGroupResponse> result = new CompletableFuture<>();
        run(() -> {
            ErrorCode err = coordinatorError(req.getGroupId());
            if (err != ErrorCode.NONE) {
                complete(result, JoinGroupResponse.newBuilder().setError(error(err, "")).setGenerationId(-1)
                    .setMemberId(req.getMemberId()).build());
                return;
            }
            membership.join(groups.get(req.getGroupId()), req, clientHost == null ? "" : clientHost, result);
        });
        return result;
    }

    /** SyncGroup; the answer comes once the leader's assignment is stored. */
    public CompletableFuture<SyncGroupResponse> syncGroup(SyncGroupRequest req) {
        CompletableFuture<SyncGroupResponse> result = new CompletableFuture<>();
        run(() -> {
            ErrorCode err = coordinatorError(req.getGroupId());
            if (err != ErrorCode.NONE) {
                complete(result, SyncGroupResponse.newBuilder().setError(error(err, "")).build());
                return;
            }
            membership.sync(groups.get(req.getGroupId()), req, result);
        });
        return result;
    }

    public HeartbeatResponse heartbeat(HeartbeatRequest req) {
        return call(() -> {
            ErrorCode err = coordinatorError(req.getGroupId());
            if (err == ErrorCode.NONE) {
                err = membership.heartbeat(groups.get(req.getGroupId()), req);
            }
            return HeartbeatResponse.newBuilder().setError(error(err, "")).build();
        });
    }

    public LeaveGroupResponse leaveGroup(LeaveGroupRequest req) {
        return call(() -> {
            ErrorCode err = coordinatorError(req.getGroupId());
            if (err != ErrorCode.NONE) {
                return LeaveGroupResponse.newBuilder().setError(error(err, "")).build();
            }
            return membership.leave(groups.get(req.getGroupId()), req);
        });
    }

    /** OffsetCommit; answered once the offsets are stored (acks=all) and cached. */
    public CompletableFuture<OffsetCommitResponse> commitOffsets(OffsetCommitRequest req) {
        CompletableFuture<OffsetCommitResponse> result = new CompletableFuture<>();
        run(() -> {
            ErrorCode err = coordinatorError(req.getGroupId());
            if (err != ErrorCode.NONE) {
                complete(result, GroupOffsets.commitResponse(req, err, ""));
                return;
            }
            offsets.commit(req, result);
        });
        return result;
    }

    /**
     * OffsetDelete: tombstones for the named partitions' committed offsets, answered once stored (so a coordinator that
     * loads the partition next does not bring them back), then dropped from the cache. See {@link GroupOffsets#delete}.
     */
    public CompletableFuture<OffsetDeleteResponse> deleteOffsets(OffsetDeleteRequest req) {
        CompletableFuture<OffsetDeleteResponse> result = new CompletableFuture<>();
        run(() -> {
            ErrorCode err = coordinatorError(req.getGroupId());
            if (err != ErrorCode.NONE) {
                complete(result, GroupOffsets.deleteResponse(req, err, Map.of()));
                return;
            }
            offsets.delete(groups.get(req.getGroupId()), req, result);
        });
        return result;
    }

    /** OffsetFetch, from the cache. Partitions without a committed offset answer -1. */
    public OffsetFetchResponse fetchOffsets(OffsetFetchRequest req) {
        return call(() -> {
            ErrorCode err = coordinatorError(req.getGroupId());
            if (err != ErrorCode.NONE) {
                return OffsetFetchResponse.newBuilder().setError(error(err, "")).build();
            }
            return offsets.fetch(groups.get(req.getGroupId()), req);
        });
    }

    /** The groups this broker coordinates; COORDINATOR_LOAD_IN_PROGRESS (and none) while any partition loads. */
    public ListGroupsResponse listGroups(ListGroupsRequest req) {
        return call(() -> {
            ListGroupsResponse.Builder b = ListGroupsResponse.newBuilder().setCoordinatorId(brokerId);
            if (owned.values().stream().anyMatch(op -> op.state == LoadState.LOADING)) {
                return b.setError(error(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, "")).build();
            }
            b.setError(error(ErrorCode.NONE, ""));
            groups.values().stream().sorted((x, y) -> x.groupId.compareTo(y.groupId)).forEach(g -> {
                String state = g.state.displayName();
                if (req.getStatesFilterCount() == 0 || req.getStatesFilterList().stream().anyMatch(state::equalsIgnoreCase)) {
                    b.addGroups(ListGroupsResponse.Group.newBuilder().setGroupId(g.groupId)
                        .setProtocolType(g.protocolType == null ? "" : g.protocolType).setState(state));
                }
            });
            return b.build();
        });
    }

    /** Describes groups; a group this coordinator does not know is "Dead" with GROUP_ID_NOT_FOUND. */
    public DescribeGroupsResponse describeGroups(DescribeGroupsRequest req) {
        List<DescribeGroupsResponse.Group.Builder> described = call(() -> {
            List<DescribeGroupsResponse.Group.Builder> out = new ArrayList<>();
            for (String id : req.getGroupIdsList()) {
                out.add(describe(id, req.getIncludeOffsets()));
            }
            return out;
        });
        DescribeGroupsResponse.Builder b = DescribeGroupsResponse.newBuilder().setCoordinatorId(brokerId);
        for (DescribeGroupsResponse.Group.Builder g : described) {
            if (req.getIncludeOffsets()) {
                // Outside the lock: the high watermarks come from the replica layer.
                for (DescribeGroupsResponse.Offset.Builder o : g.getOffsetsBuilderList()) {
                    OptionalLong hw = topic.highWatermark(o.getTopic(), o.getPartition());
                    o.setLogEndOffset(hw.orElse(-1L));
                }
            }
            b.addGroups(g);
        }
        return b.build();
    }

    private DescribeGroupsResponse.Group.Builder describe(String id, boolean includeOffsets) {
        DescribeGroupsResponse.Group.Builder b = DescribeGroupsResponse.Group.newBuilder().setGroupId(id);
        ErrorCode err = coordinatorError(id);
        Group g = err == ErrorCode.NONE ? groups.get(id) : null;
        if (err == ErrorCode.NONE && g == null) {
            err = ErrorCode.GROUP_ID_NOT_FOUND;
        }
        if (g == null) {
            return b.setError(error(err, "")).setState(GroupState.DEAD.displayName());
        }
        b.setError(error(ErrorCode.NONE, "")).setState(g.state.displayName())
            .setProtocolType(g.protocolType == null ? "" : g.protocolType)
            .setProtocol(g.protocolName == null ? "" : g.protocolName)
            .setGenerationId(g.generationId).setLeader(g.leaderId == null ? "" : g.leaderId);
        for (Member m : g.members.values()) {
            byte[] md = g.protocolName == null ? null : m.metadataFor(g.protocolName);
            b.addMembers(DescribeGroupsResponse.Member.newBuilder().setMemberId(m.memberId).setClientId(m.clientId)
                .setClientHost(m.clientHost)
                .setMetadata(md == null ? ByteString.EMPTY : ByteString.copyFrom(md))
                .setAssignment(ByteString.copyFrom(m.assignment)));
        }
        if (includeOffsets) {
            g.offsets.forEach((k, o) -> b.addOffsets(DescribeGroupsResponse.Offset.newBuilder().setTopic(k.topic())
                .setPartition(k.partition()).setCommittedOffset(o.offset()).setMetadata(o.metadata()).setLogEndOffset(-1)));
        }
        return b;
    }

    /** Deletes empty groups: tombstones for the group and every offset, then the group is gone. */
    public CompletableFuture<DeleteGroupsResponse> deleteGroups(DeleteGroupsRequest req) {
        List<CompletableFuture<DeleteGroupsResponse.Result>> results = new ArrayList<>();
        run(() -> {
            for (String id : req.getGroupIdsList()) {
                CompletableFuture<DeleteGroupsResponse.Result> r = new CompletableFuture<>();
                results.add(r);
                deleteGroup(id, r);
            }
        });
        return CompletableFuture.allOf(results.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            DeleteGroupsResponse.Builder b = DeleteGroupsResponse.newBuilder();
            results.forEach(r -> b.addResults(r.join()));
            return b.build();
        });
    }

    private void deleteGroup(String id, CompletableFuture<DeleteGroupsResponse.Result> result) {
        DeleteGroupsResponse.Result.Builder b = DeleteGroupsResponse.Result.newBuilder().setGroupId(id);
        ErrorCode err = coordinatorError(id);
        Group g = err == ErrorCode.NONE ? groups.get(id) : null;
        if (err == ErrorCode.NONE && (g == null || g.deleting)) {
            err = ErrorCode.GROUP_ID_NOT_FOUND;
        } else if (err == ErrorCode.NONE && !g.is(GroupState.EMPTY)) {
            err = ErrorCode.NON_EMPTY_GROUP;
        }
        if (err != ErrorCode.NONE) {
            complete(result, b.setError(error(err, "")).build());
            return;
        }
        List<GroupRecords.KeyValue> tombstones = new ArrayList<>();
        g.offsets.keySet().forEach(k -> tombstones.add(GroupRecords.offsetCommit(id, k.topic(), k.partition(), null)));
        tombstones.add(GroupRecords.groupMetadata(id, null));
        g.deleting = true;
        Group group = g;
        append(g.offsetsPartition, tombstones, code -> {
            if (isCurrent(group)) {
                group.deleting = false;
                if (code == ErrorCode.NONE) {
                    removeGroup(group);
                    LOG.info("deleted group {}", id);
                }
            }
            complete(result, b.setError(error(code, "")).build());
        });
    }

    /** Members per group this broker coordinates, for the {@code raftline_group_members{group}} gauge. */
    public Map<String, Integer> memberCounts() {
        return call(() -> {
            Map<String, Integer> out = new TreeMap<>();
            groups.values().forEach(g -> out.put(g.groupId, g.members.size()));
            return out;
        });
    }

    /** A committed offset of a group, as the metrics read it. */
    public record CommittedPosition(String topic, int partition, long offset) {
    }

    /** One group this broker coordinates, as the group gauges read it: its member count and committed offsets. */
    public record GroupSnapshot(String groupId, int members, List<CommittedPosition> committed, String state,
                                long rebalances, long lastRebalanceMs) {
    }

    /**
     * Every group this broker coordinates (loaded, not Dead), sorted by id, with its members and committed offsets: what
     * {@code raftline_groups}, {@code raftline_group_members} and {@code raftline_group_lag} show. A copy taken
     * under the lock; partitions still loading contribute nothing yet.
     */
    public List<GroupSnapshot> snapshot() {
        return call(() -> {
            List<GroupSnapshot> out = new ArrayList<>();
            new TreeMap<>(groups).forEach((id, g) -> {
                if (g.is(GroupState.DEAD) || !isLoaded(g.offsetsPartition)) {
                    return;
                }
                List<CommittedPosition> committed = new ArrayList<>();
                g.offsets.forEach((k, o) -> committed.add(new CommittedPosition(k.topic(), k.partition(), o.offset())));
                out.add(new GroupSnapshot(id, g.members.size(), List.copyOf(committed), g.state.displayName(), g.rebalances,
                    g.lastRebalanceMs));
            });
            return out;
        });
    }

    // ------------------------------------------------------------------------------------------------ offset expiry

    private void expireOffsetsAndReschedule() {
        run(() -> {
            if (shutdown) {
                return;
            }
            offsets.expire();
            expiryTimer = schedule(config.offsetsRetentionCheckIntervalMs(), this::expireOffsetsAndReschedule);
        });
    }

    /** Runs the offset expiry now (tests; production runs it on a timer). */
    void expireOffsets() {
        run(offsets::expire);
    }

    void removeGroup(Group g) {
        membership.unload(g, ErrorCode.COORDINATOR_NOT_AVAILABLE);
        g.transitionTo(GroupState.DEAD, time.milliseconds());
        groups.remove(g.groupId);
    }

    // ------------------------------------------------------------------------------------------------ for GroupMembership

    Group createGroup(String groupId) {
        Group g = new Group(groupId, OffsetsTopic.partitionFor(groupId, partitionCount), time.milliseconds());
        groups.put(groupId, g);
        return g;
    }

    /** The group with this id, or null. */
    Group group(String groupId) {
        return groups.get(groupId);
    }

    /** All groups this coordinator holds now. */
    Iterable<Group> groups() {
        return new ArrayList<>(groups.values());
    }

    /** Whether {@code g} is still the live object for its id (not unloaded, deleted or replaced). */
    boolean isCurrent(Group g) {
        return groups.get(g.groupId) == g;
    }

    /** Stores the group's current generation (members and their assignments). */
    void persistGroup(Group g, Consumer<ErrorCode> then) {
        persistGroup(g, membership.metadataValue(g, null), then);
    }

    void persistGroup(Group g, GroupMetadataValue value, Consumer<ErrorCode> then) {
        append(g.offsetsPartition, List.of(GroupRecords.groupMetadata(g.groupId, value)), then);
    }

    /** Monotonic now, for deadlines. */
    long nowMs() {
        return time.hiResMilliseconds();
    }

    /** Wall-clock now, for timestamps that are stored. */
    long wallMs() {
        return time.milliseconds();
    }

    /** Schedules {@code task} to run under the lock. */
    GroupScheduler.Task schedule(long delayMs, Runnable task) {
        return scheduler.schedule(delayMs, () -> run(task));
    }

    /** Completes {@code f} with {@code value} once the lock is released. */
    <T> void complete(CompletableFuture<T> f, T value) {
        if (!lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("complete() outside the coordinator lock");
        }
        afterUnlock.add(() -> f.complete(value));
    }

    // ------------------------------------------------------------------------------------------------ plumbing

    private ErrorCode coordinatorError(String groupId) {
        if (groupId == null || groupId.isEmpty()) {
            return ErrorCode.INVALID_REQUEST;
        }
        if (shutdown) {
            return ErrorCode.NOT_COORDINATOR;
        }
        OwnedPartition op = owned.get(OffsetsTopic.partitionFor(groupId, partitionCount));
        if (op == null) {
            return ErrorCode.NOT_COORDINATOR;
        }
        return switch (op.state) {
            case LOADING -> ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
            case FAILED -> ErrorCode.COORDINATOR_NOT_AVAILABLE;
            case LOADED -> ErrorCode.NONE;
        };
    }

    boolean isLoaded(int partition) {
        OwnedPartition op = owned.get(partition);
        return op != null && op.state == LoadState.LOADED;
    }

    /** How an {@link #append} ended: NONE and the offset of the batch's first record, or the error and -1. */
    @FunctionalInterface
    interface Appended {
        void accept(ErrorCode code, long baseOffset);
    }

    /** {@link #append(int, List, Appended)} for a caller that needs no offset. */
    void append(int partition, List<GroupRecords.KeyValue> records, Consumer<ErrorCode> then) {
        append(partition, records, (code, baseOffset) -> then.accept(code));
    }

    /**
     * Appends {@code records} as one batch to {@code partition} (under the lock, so the log follows the order of
     * decisions); {@code then} runs under the lock with NONE or the error to answer, after the write is replicated,
     * failed, or timed out after offsets.commit.timeout.ms. Appends may complete in another order than they were made.
     */
    void append(int partition, List<GroupRecords.KeyValue> records, Appended then) {
        OwnedPartition op = owned.get(partition);
        CompletableFuture<Long> written;
        try {
            written = topic.append(partition, GroupRecords.batch(records, time.milliseconds()));
        } catch (RuntimeException e) {
            written = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Long> bounded = new CompletableFuture<>();
        GroupScheduler.Task timeout = scheduler.schedule(config.offsetCommitTimeoutMs(), () -> bounded.completeExceptionally(
            new OffsetsTopicException(ErrorCode.REQUEST_TIMED_OUT, "not replicated in " + config.offsetCommitTimeoutMs() + " ms")));
        written.whenComplete((offset, e) -> {
            if (e == null) {
                bounded.complete(offset);
            } else {
                bounded.completeExceptionally(e);
            }
        });
        bounded.whenComplete((offset, e) -> {
            timeout.cancel();
            Runnable followUp = () -> run(() -> {
                ErrorCode code = e == null ? ErrorCode.NONE : appendError(e);
                if (owned.get(partition) != op) {
                    code = ErrorCode.NOT_COORDINATOR;
                }
                then.accept(code, code == ErrorCode.NONE ? offset : -1);
            });
            if (lock.isHeldByCurrentThread()) {
                afterUnlock.add(followUp); // the append completed at once: follow up after this decision is done
            } else {
                followUp.run();
            }
        });
    }

    /** The error a client should see for a failed write to {@code __consumer_offsets}. */
    static ErrorCode appendError(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        if (!(c instanceof OffsetsTopicException ote)) {
            LOG.warn("unexpected failure writing to {}", OffsetsTopic.NAME, c);
            return ErrorCode.UNKNOWN;
        }
        return switch (ote.code()) {
            case NOT_LEADER, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH -> ErrorCode.NOT_COORDINATOR;
            case UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                REQUEST_TIMED_OUT, THROTTLED, STORAGE_ERROR, COORDINATOR_NOT_AVAILABLE -> ErrorCode.COORDINATOR_NOT_AVAILABLE;
            case MESSAGE_TOO_LARGE, CORRUPT_MESSAGE, INVALID_RECORD -> ErrorCode.INVALID_REQUEST;
            default -> ErrorCode.UNKNOWN;
        };
    }

    /** An error with {@code message}, or when that is empty (most group answers) a sentence that says what the code means. */
    static Error error(ErrorCode code, String message) {
        boolean blank = message == null || message.isBlank();
        return Error.newBuilder().setCode(code).setMessage(!blank ? message : code == ErrorCode.NONE ? "" : meaning(code))
            .build();
    }

    private static String meaning(ErrorCode code) {
        return switch (code) {
            case UNKNOWN_MEMBER_ID -> "the member id is not a member of the group";
            case ILLEGAL_GENERATION -> "the generation is not the group's current one";
            case REBALANCE_IN_PROGRESS -> "the group is rebalancing: rejoin";
            case NOT_COORDINATOR -> "this broker does not coordinate the group: find its coordinator again";
            case COORDINATOR_LOAD_IN_PROGRESS -> "the coordinator is still loading the group's offsets partition";
            case COORDINATOR_NOT_AVAILABLE -> "the group's coordinator is not available (no offsets topic or no leader)";
            case GROUP_ID_NOT_FOUND -> "no such group";
            case NON_EMPTY_GROUP -> "the group still has members";
            case INCONSISTENT_GROUP_PROTOCOL -> "the member's protocol type or protocols match none of the group's";
            case INVALID_SESSION_TIMEOUT -> "the session timeout is outside group.min/max.session.timeout.ms";
            case MEMBER_ID_REQUIRED -> "join again with the member id in this answer";
            default -> code.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
        };
    }

    private void run(Runnable body) {
        call(() -> {
            body.run();
            return null;
        });
    }

    private <T> T call(Supplier<T> body) {
        List<Runnable> actions = List.of();
        lock.lock();
        try {
            return body.get();
        } finally {
            if (lock.getHoldCount() == 1 && !afterUnlock.isEmpty()) {
                actions = new ArrayList<>(afterUnlock);
                afterUnlock.clear();
            }
            lock.unlock();
            for (Runnable r : actions) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    LOG.error("group coordinator follow-up failed", e);
                }
            }
        }
    }
}
