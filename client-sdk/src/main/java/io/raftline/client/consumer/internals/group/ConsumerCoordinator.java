package io.raftline.client.consumer.internals.group;

import com.google.protobuf.ByteString;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor.Assignment;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor.RebalanceProtocol;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor.Subscription;
import io.raftline.client.consumer.assignor.ConsumerProtocol;
import io.raftline.client.errors.ApiException;
import io.raftline.client.errors.Errors;
import io.raftline.client.errors.InterruptException;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.errors.RebalanceInProgressException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.common.Time;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's membership in its group over the classic protocol: finds the coordinator, joins (the leader runs the
 * assignor), syncs, heartbeats from a background thread, leaves, commits and fetches offsets, and calls the
 * rebalance listener: eager (revoke all, then assign) or cooperative (revoke only what moves, then rejoin at once so
 * the moved partitions reach their new owners). Generation ids fence it: a member the coordinator no longer knows
 * loses its partitions (onPartitionsLost) and joins afresh.
 *
 * <p>JoinGroup and SyncGroup stay in flight across polls, as in Kafka's consumer: the coordinator holds their answers
 * until every member rejoined (up to the rebalance timeout), and the other members may be polled by the same
 * application thread. A {@code poll} waits for the pending answer only until its own deadline and the next one goes on
 * with the same request; a member never has two JoinGroups out, and revokes (onJoinPrepare) once per JoinGroup sent.
 *
 * <p>Threads: the consumer's thread calls {@link #poll}, commits and {@link #close}; listener callbacks run there.
 * The heartbeat thread only sends heartbeats and sets flags that the next {@code poll} acts on; {@link #wakeup} may
 * come from any thread. State is guarded by this object's monitor; no call to the network is made while holding it.
 */
public final class ConsumerCoordinator implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerCoordinator.class);
    /** Added to the rebalance timeout for the JoinGroup deadline: the coordinator answers at the rebalance timeout at worst. */
    private static final long JOIN_SLACK_MS = 5000;

    /** Where the member is in the protocol. */
    public enum MemberState { UNJOINED, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE }

    /** The member's place in the group: generation -1 and an empty member id before it joined. */
    public record Generation(int generationId, String memberId, String protocolName) {
        public static final Generation NO_GENERATION = new Generation(-1, "", "");
    }

    private final GroupMembershipConfig config;
    private final GroupHost host;
    private final GroupRebalanceListener listener;
    private final Map<String, ConsumerPartitionAssignor> assignors = new LinkedHashMap<>();
    private final RebalanceProtocol protocol;
    private final Time time;
    private final HeartbeatThread heartbeat;
    private final CoordinatorLocator locator;
    private ExecutorService commitExecutor;

    // Guarded by this.
    private Generation generation = Generation.NO_GENERATION;
    private String leaderId = "";
    private MemberState state = MemberState.UNJOINED;
    private boolean rejoinNeeded = true;
    private String rejoinReason = "the member has not joined yet";
    private boolean partitionsLost;
    private final Set<TopicPartition> owned = new TreeSet<>();
    private Set<String> joinedSubscription = Set.of();
    private Map<String, Integer> joinedPartitionCounts = Map.of();
    private long lastPollMs;
    private boolean closed;
    /** The JoinGroup under way, kept across polls; null when none is. */
    private PendingJoin pendingJoin;
    /** The SyncGroup under way, kept across polls; null when none is. */
    private PendingSync pendingSync;
    /** Set by {@link #wakeup}: a poll waiting for a pending answer returns at once (and clears it). */
    private boolean wakeupRequested;

    /** A JoinGroup sent over {@code channel}, its answer to come. */
    private record PendingJoin(GroupChannel channel, CompletableFuture<JoinGroupResponse> answer) {
    }

    /**
     * A SyncGroup of {@code generation} sent over {@code channel}; {@code groupCounts} are the partition counts the
     * leader assigned with (null for a follower).
     */
    private record PendingSync(GroupChannel channel, Generation generation, Map<String, Integer> groupCounts,
                               CompletableFuture<SyncGroupResponse> answer) {
    }

    /**
     * @param assignors in preference order (partition.assignment.strategy); the protocol is cooperative only if every
     *                  one of them supports it, as in Kafka
     */
    public ConsumerCoordinator(GroupMembershipConfig config, GroupHost host, GroupRebalanceListener listener,
                               List<ConsumerPartitionAssignor> assignors, Time time) {
        if (assignors.isEmpty()) {
            throw new IllegalArgumentException("a group member needs at least one partition assignor");
        }
        this.config = config;
        this.host = host;
        this.listener = listener;
        this.time = time;
        for (ConsumerPartitionAssignor a : assignors) {
            if (assignors.stream().filter(x -> x.name().equals(a.name())).count() > 1) {
                throw new IllegalArgumentException("assignor " + a.name() + " is listed twice");
            }
            this.assignors.put(a.name(), a);
        }
        this.protocol = assignors.stream().allMatch(a -> a.supportedProtocols().contains(RebalanceProtocol.COOPERATIVE))
            ? RebalanceProtocol.COOPERATIVE : RebalanceProtocol.EAGER;
        this.lastPollMs = time.milliseconds();
        this.locator = new CoordinatorLocator(config, host, time, this::coordinatorFound);
        this.heartbeat = new HeartbeatThread();
        this.heartbeat.start();
    }

    // ------------------------------------------------------------------------------------------------ public API

    /**
     * Called at every consumer poll: notes the poll (for max.poll.interval.ms), and if the group needs it, finds the
     * coordinator and (re)joins, calling the listener. Returns whether the member holds a current assignment; false
     * if the rebalance did not finish within {@code timeoutMs} (call again: a JoinGroup or SyncGroup under way stays
     * pending, and the next call goes on waiting for its answer).
     *
     * @throws ApiException for a fatal group error (INCONSISTENT_GROUP_PROTOCOL, INVALID_SESSION_TIMEOUT, ...)
     */
    public boolean poll(long timeoutMs) {
        long deadline = time.milliseconds() + timeoutMs;
        synchronized (this) {
            checkOpen();
            lastPollMs = time.milliseconds();
            if (state == MemberState.STABLE) {
                detectChanges();
            }
        }
        handleLostPartitions();
        return ensureActiveGroup(deadline);
    }

    /** The partitions this member owns now. */
    public synchronized Set<TopicPartition> assignment() {
        return Set.copyOf(owned);
    }

    public synchronized Generation generation() {
        return generation;
    }

    public synchronized MemberState state() {
        return state;
    }

    /** The rebalance protocol in use: cooperative only if every configured assignor supports it. */
    public RebalanceProtocol protocol() {
        return protocol;
    }

    public synchronized boolean rejoinNeeded() {
        return rejoinNeeded;
    }

    /** Asks for a rebalance at the next poll (the subscription changed, the application asked for it). */
    public synchronized void requestRejoin(String reason) {
        if (!rejoinNeeded) {
            LOG.info("group {}: rejoining: {}", config.groupId(), reason);
        }
        rejoinNeeded = true;
        rejoinReason = reason;
    }

    /**
     * Makes a {@link #poll} that waits for a pending JoinGroup or SyncGroup return at once (the request stays pending
     * for the next poll); the consumer's wakeup. Any thread.
     */
    public synchronized void wakeup() {
        wakeupRequested = true;
        notifyAll();
    }

    /**
     * Commits offsets and waits for the answer. Outside a rebalance, as a member of the current generation; a consumer
     * that never joined (manual assignment) commits from outside the protocol.
     *
     * @throws RebalanceInProgressException  the group is rebalancing: commit again after the next poll
     * @throws io.raftline.client.errors.IllegalGenerationException or UnknownMemberIdException: this member was fenced
     *                                       and its partitions are lost
     * @throws TimeoutException              no answer within {@code timeoutMs}
     */
    public void commitSync(Map<TopicPartition, CommittedOffset> offsets, long timeoutMs) {
        if (offsets.isEmpty()) {
            return;
        }
        long deadline = time.milliseconds() + timeoutMs;
        while (true) {
            GroupChannel ch = locator.ensure(deadline);
            Generation g;
            synchronized (this) {
                if (state == MemberState.UNJOINED && generation.memberId().isEmpty()) {
                    g = Generation.NO_GENERATION;
                } else if (state != MemberState.STABLE) {
                    throw new RebalanceInProgressException("the group " + config.groupId() + " is rebalancing; commit after the next poll");
                } else {
                    g = generation;
                }
            }
            OffsetCommitRequest req = commitRequest(g, offsets);
            OffsetCommitResponse resp;
            try {
                resp = ch.call(s -> s.offsetCommit(req), locator.remaining(deadline, config.requestTimeoutMs()));
            } catch (RaftlineException e) {
                locator.failed(ch, e.toString());
                locator.backoffOrTimeout(deadline, "commit offsets", e);
                continue;
            }
            ErrorCode code = firstError(resp);
            switch (code) {
                case NONE -> {
                    return;
                }
                case COORDINATOR_LOAD_IN_PROGRESS, REQUEST_TIMED_OUT -> locator.backoffOrTimeout(deadline, "commit offsets", null);
                case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> {
                    locator.failed(ch, code.name());
                    locator.backoffOrTimeout(deadline, "commit offsets", null);
                }
                case REBALANCE_IN_PROGRESS -> {
                    synchronized (this) {
                        // Unless a join already went out since (the commit crossed it): that join is the rejoin.
                        if (state == MemberState.STABLE && generation.equals(g)) {
                            requestRejoin("a commit found the group rebalancing");
                        }
                    }
                    throw Errors.toException(code, "the group " + config.groupId() + " is rebalancing; commit after the next poll");
                }
                case ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID -> {
                    synchronized (this) {
                        // A commit of a generation this member has left since says nothing about the current one.
                        if (generation.equals(g) && !g.memberId().isEmpty()) {
                            fenced("commit refused with " + code);
                        }
                    }
                    throw Errors.toException(code, "commit refused: this member is no longer in generation "
                        + g.generationId() + " of group " + config.groupId() + "; its partitions were reassigned");
                }
                default -> throw Errors.toException(code, "commit to group " + config.groupId() + " failed");
            }
        }
    }

    /** Commits on a background thread; the future fails as {@link #commitSync} would throw. */
    public CompletableFuture<Void> commitAsync(Map<TopicPartition, CommittedOffset> offsets) {
        Map<TopicPartition, CommittedOffset> copy = Map.copyOf(offsets);
        ExecutorService ex;
        synchronized (this) {
            checkOpen();
            if (commitExecutor == null) {
                commitExecutor = Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "raftline-commit-" + config.groupId());
                    t.setDaemon(true);
                    return t;
                });
            }
            ex = commitExecutor;
        }
        return CompletableFuture.runAsync(() -> commitSync(copy, config.requestTimeoutMs()), ex);
    }

    /** The group's committed offsets for {@code partitions}; a partition without one is absent from the answer. */
    public Map<TopicPartition, CommittedOffset> fetchCommitted(Set<TopicPartition> partitions, long timeoutMs) {
        if (partitions.isEmpty()) {
            return Map.of();
        }
        long deadline = time.milliseconds() + timeoutMs;
        OffsetFetchRequest.Builder b = OffsetFetchRequest.newBuilder().setGroupId(config.groupId());
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        partitions.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition()));
        byTopic.forEach((t, ps) -> b.addTopics(OffsetFetchRequest.Topic.newBuilder().setName(t).addAllPartitions(ps)));
        OffsetFetchRequest req = b.build();
        while (true) {
            GroupChannel ch = locator.ensure(deadline);
            OffsetFetchResponse resp;
            try {
                resp = ch.call(s -> s.offsetFetch(req), locator.remaining(deadline, config.requestTimeoutMs()));
            } catch (RaftlineException e) {
                locator.failed(ch, e.toString());
                locator.backoffOrTimeout(deadline, "fetch committed offsets", e);
                continue;
            }
            ErrorCode code = resp.getError().getCode();
            switch (code) {
                case NONE -> {
                    Map<TopicPartition, CommittedOffset> out = new HashMap<>();
                    for (OffsetFetchResponse.TopicResult t : resp.getTopicsList()) {
                        for (OffsetFetchResponse.PartitionResult p : t.getPartitionsList()) {
                            if (p.getError().getCode() != ErrorCode.NONE) {
                                throw Errors.toException(p.getError());
                            }
                            if (p.getCommittedOffset() >= 0) {
                                out.put(new TopicPartition(t.getName(), p.getPartition()),
                                    new CommittedOffset(p.getCommittedOffset(), p.getCommittedLeaderEpoch(), p.getMetadata()));
                            }
                        }
                    }
                    return out;
                }
                case COORDINATOR_LOAD_IN_PROGRESS -> locator.backoffOrTimeout(deadline, "fetch committed offsets", null);
                case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> {
                    locator.failed(ch, code.name());
                    locator.backoffOrTimeout(deadline, "fetch committed offsets", null);
                }
                default -> throw Errors.toException(resp.getError());
            }
        }
    }

    /**
     * Leaves the group (the coordinator rebalances the others at once instead of after the session timeout), after
     * revoking this member's partitions. Used on unsubscribe; the member joins again at its next poll.
     */
    public void leaveGroup(String reason, long timeoutMs) {
        revokeAll();
        Generation g;
        GroupChannel ch;
        List<CompletableFuture<?>> abandoned = new ArrayList<>();
        synchronized (this) {
            g = generation;
            ch = locator.current();
            resetGeneration();
            rejoinNeeded = true;
            rejoinReason = "the member left";
            // A join or sync under way is dropped: the LeaveGroup below takes the member out of that rebalance.
            if (pendingJoin != null) {
                abandoned.add(pendingJoin.answer());
                pendingJoin = null;
            }
            if (pendingSync != null) {
                abandoned.add(pendingSync.answer());
                pendingSync = null;
            }
        }
        abandoned.forEach(f -> f.cancel(false));
        if (!g.memberId().isEmpty() && ch != null) {
            LOG.info("group {}: member {} leaves: {}", config.groupId(), g.memberId(), reason);
            try {
                ch.call(s -> s.leaveGroup(LeaveGroupRequest.newBuilder().setGroupId(config.groupId())
                    .addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId(g.memberId()).setReason(reason)).build()),
                    Math.max(1, timeoutMs));
            } catch (RaftlineException e) {
                LOG.info("group {}: LeaveGroup failed ({}); the coordinator will drop the member after its session", config.groupId(), e);
            }
        }
    }

    /** Revokes this member's partitions, leaves the group and stops the heartbeat thread. */
    @Override
    public void close() {
        close(config.requestTimeoutMs());
    }

    public void close(long timeoutMs) {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        try {
            leaveGroup("the consumer is closing", timeoutMs);
        } finally {
            synchronized (this) {
                closed = true;
                notifyAll();
            }
            heartbeat.interrupt();
            try {
                heartbeat.join(Math.max(1, timeoutMs));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (this) {
                if (commitExecutor != null) {
                    commitExecutor.shutdownNow();
                }
                locator.close();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ join and sync

    private boolean ensureActiveGroup(long deadline) {
        while (true) {
            PendingJoin join;
            PendingSync sync;
            synchronized (this) {
                join = pendingJoin;
                sync = pendingSync;
                if (join == null && sync == null) {
                    if (state == MemberState.STABLE && !rejoinNeeded && locator.current() != null) {
                        return true;
                    }
                    if (host.subscription().isEmpty() && state == MemberState.UNJOINED) {
                        return false; // nothing to join for
                    }
                }
            }
            if (sync != null) {
                SyncGroupResponse resp;
                try {
                    resp = awaitAnswer(sync.answer(), deadline);
                } catch (RaftlineException e) {
                    clearPending(sync);
                    locator.failed(sync.channel(), e.toString());
                    requestRejoin("SyncGroup failed: " + e.getMessage());
                    if (!locator.sleepBackoff(deadline)) {
                        return false;
                    }
                    continue;
                }
                if (resp == null) {
                    return false; // still pending: the next poll goes on waiting for it
                }
                clearPending(sync);
                completeSync(sync, resp, deadline);
                continue; // loop once more: STABLE returns, a cooperative follow-up rejoins at once
            }
            if (join != null) {
                JoinGroupResponse resp;
                try {
                    resp = awaitAnswer(join.answer(), deadline);
                } catch (RaftlineException e) {
                    clearPending(join);
                    locator.failed(join.channel(), e.toString());
                    if (!locator.sleepBackoff(deadline)) {
                        return false;
                    }
                    continue;
                }
                if (resp == null) {
                    return false; // still pending: the next poll goes on waiting for it
                }
                clearPending(join);
                completeJoin(join.channel(), resp, deadline);
                continue;
            }
            if (time.milliseconds() >= deadline) {
                return false;
            }
            GroupChannel ch;
            try {
                ch = locator.ensure(deadline);
            } catch (TimeoutException e) {
                return false;
            }
            synchronized (this) {
                if (state == MemberState.STABLE && !rejoinNeeded) {
                    return true; // the coordinator moved; the generation goes on with the new one
                }
            }
            onJoinPrepare();
            sendJoin(ch);
        }
    }

    /**
     * Waits for a pending answer until {@code deadline} or a {@link #wakeup}; null if it has not come by then.
     *
     * @throws RaftlineException the call failed (transport, deadline, cancelled)
     */
    private <T> T awaitAnswer(CompletableFuture<T> answer, long deadline) {
        synchronized (this) {
            // The answer's arrival notifies this monitor (see whenAnswered); so does wakeup().
            while (!answer.isDone() && !wakeupRequested) {
                long waitMs = deadline - time.milliseconds();
                if (waitMs <= 0) {
                    break;
                }
                try {
                    wait(waitMs);
                } catch (InterruptedException e) {
                    throw new InterruptException("interrupted while waiting for the group coordinator", e);
                }
            }
            wakeupRequested = false;
        }
        if (!answer.isDone()) {
            return null;
        }
        try {
            return answer.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RaftlineException re ? re : new RaftlineException(String.valueOf(e.getCause()), e.getCause());
        } catch (CancellationException e) {
            throw new RaftlineException("the group request was abandoned", e);
        }
    }

    /** Wakes a poll waiting in {@link #awaitAnswer} when the answer comes (on a gRPC thread). */
    private <T> CompletableFuture<T> whenAnswered(CompletableFuture<T> answer) {
        answer.whenComplete((v, e) -> {
            synchronized (this) {
                notifyAll();
            }
        });
        return answer;
    }

    private synchronized void clearPending(PendingJoin join) {
        if (pendingJoin == join) {
            pendingJoin = null;
        }
    }

    private synchronized void clearPending(PendingSync sync) {
        if (pendingSync == sync) {
            pendingSync = null;
        }
    }

    /** Acts on JoinGroup's answer: a member of the new generation syncs next; otherwise the loop joins again. */
    private void completeJoin(GroupChannel ch, JoinGroupResponse join, long deadline) {
        ErrorCode code = join.getError().getCode();
        switch (code) {
            case NONE -> startSync(ch, join);
            case MEMBER_ID_REQUIRED -> {
                synchronized (this) {
                    generation = new Generation(-1, join.getMemberId(), "");
                }
            }
            case UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION -> fenced("JoinGroup answered " + code);
            case REBALANCE_IN_PROGRESS -> {
            }
            case COORDINATOR_LOAD_IN_PROGRESS -> locator.sleepBackoff(deadline);
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> {
                locator.failed(ch, code.name());
                locator.sleepBackoff(deadline);
            }
            default -> {
                synchronized (this) {
                    state = MemberState.UNJOINED;
                }
                throw Errors.toException(join.getError());
            }
        }
    }

    /** Before (re)joining: eager revokes everything; cooperative revokes only topics no longer subscribed. */
    private void onJoinPrepare() {
        handleLostPartitions();
        Set<TopicPartition> revoke = new TreeSet<>();
        synchronized (this) {
            if (protocol == RebalanceProtocol.EAGER) {
                revoke.addAll(owned);
            } else {
                Set<String> topics = host.subscription();
                owned.stream().filter(tp -> !topics.contains(tp.topic())).forEach(revoke::add);
            }
        }
        if (!revoke.isEmpty()) {
            invoke(() -> listener.onPartitionsRevoked(revoke), "onPartitionsRevoked");
            synchronized (this) {
                owned.removeAll(revoke);
            }
        }
    }

    /** Sends JoinGroup; its answer is awaited by this poll and the next ones ({@link #pendingJoin}). */
    private void sendJoin(GroupChannel ch) {
        Set<String> topics = new TreeSet<>(host.subscription());
        JoinGroupRequest.Builder b;
        synchronized (this) {
            state = MemberState.PREPARING_REBALANCE;
            joinedSubscription = Set.copyOf(topics);
            b = JoinGroupRequest.newBuilder().setGroupId(config.groupId()).setMemberId(generation.memberId())
                .setSessionTimeoutMs(config.sessionTimeoutMs()).setRebalanceTimeoutMs(config.maxPollIntervalMs())
                .setProtocolType(ConsumerProtocol.PROTOCOL_TYPE).setClientId(config.clientId()).setReason(rejoinReason);
            boolean coop = protocol == RebalanceProtocol.COOPERATIVE;
            for (ConsumerPartitionAssignor a : assignors.values()) {
                Subscription s = new Subscription(List.copyOf(topics), a.subscriptionUserData(topics),
                    coop ? List.copyOf(owned) : List.of(), coop ? generation.generationId() : -1);
                b.addProtocols(JoinGroupRequest.Protocol.newBuilder().setName(a.name())
                    .setMetadata(ByteString.copyFrom(ConsumerProtocol.serializeSubscription(s))));
            }
            rejoinNeeded = false;
        }
        JoinGroupRequest req = b.build();
        // The coordinator holds the answer until every member rejoined: allow the rebalance timeout, not the deadline.
        CompletableFuture<JoinGroupResponse> answer = ch.callAsync((s, o) -> s.joinGroup(req, o), "JoinGroup",
            config.maxPollIntervalMs() + JOIN_SLACK_MS);
        synchronized (this) {
            pendingJoin = new PendingJoin(ch, whenAnswered(answer));
        }
    }

    /** A member of the new generation: the leader assigns; SyncGroup goes out ({@link #pendingSync}). */
    private void startSync(GroupChannel ch, JoinGroupResponse join) {
        Generation g = new Generation(join.getGenerationId(), join.getMemberId(), join.getProtocolName());
        synchronized (this) {
            generation = g;
            leaderId = join.getLeader();
            state = MemberState.COMPLETING_REBALANCE;
            partitionsLost = false;
            notifyAll(); // the heartbeat thread keeps the session alive while we wait for the assignment
        }
        SyncGroupRequest.Builder sync = SyncGroupRequest.newBuilder().setGroupId(config.groupId())
            .setGenerationId(g.generationId()).setMemberId(g.memberId()).setProtocolType(ConsumerProtocol.PROTOCOL_TYPE)
            .setProtocolName(g.protocolName());
        Map<String, Integer> groupCounts = null;
        if (join.getLeader().equals(join.getMemberId())) {
            try {
                groupCounts = performAssignment(join, sync);
            } catch (RuntimeException e) {
                synchronized (this) {
                    state = MemberState.UNJOINED;
                    rejoinNeeded = true;
                }
                throw e;
            }
        }
        SyncGroupRequest req = sync.build();
        // Like JoinGroup's: a follower's answer waits for the leader's SyncGroup.
        CompletableFuture<SyncGroupResponse> answer = ch.callAsync((s, o) -> s.syncGroup(req, o), "SyncGroup",
            config.maxPollIntervalMs() + JOIN_SLACK_MS);
        synchronized (this) {
            pendingSync = new PendingSync(ch, g, groupCounts, whenAnswered(answer));
        }
    }

    /** Acts on SyncGroup's answer: the assignment completes the rebalance; an error makes the loop rejoin or throw. */
    private void completeSync(PendingSync sync, SyncGroupResponse resp, long deadline) {
        Generation g = sync.generation();
        synchronized (this) {
            if (!generation.equals(g) || state != MemberState.COMPLETING_REBALANCE) {
                // Fenced (or left) while the SyncGroup was out: its answer is about a generation this member is no
                // longer in; the loop joins afresh.
                LOG.info("group {}: dropping the SyncGroup answer for generation {}: the member is no longer in it",
                    config.groupId(), g.generationId());
                return;
            }
        }
        ErrorCode code = resp.getError().getCode();
        switch (code) {
            case NONE -> onJoinComplete(g, resp.getAssignment().toByteArray(), sync.groupCounts());
            case REBALANCE_IN_PROGRESS -> requestRejoin("SyncGroup answered REBALANCE_IN_PROGRESS");
            case UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION -> fenced("SyncGroup answered " + code);
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> {
                locator.failed(sync.channel(), code.name());
                requestRejoin("SyncGroup answered " + code);
                locator.sleepBackoff(deadline);
            }
            default -> {
                synchronized (this) {
                    state = MemberState.UNJOINED;
                    rejoinNeeded = true;
                }
                throw Errors.toException(resp.getError());
            }
        }
    }

    /** The leader's work: every member's subscription through the chosen assignor. Returns the counts it used. */
    private Map<String, Integer> performAssignment(JoinGroupResponse join, SyncGroupRequest.Builder sync) {
        ConsumerPartitionAssignor assignor = assignors.get(join.getProtocolName());
        if (assignor == null) {
            throw new IllegalStateException("the coordinator chose protocol " + join.getProtocolName()
                + ", which this member never offered");
        }
        Map<String, Subscription> subs = new HashMap<>();
        Set<String> allTopics = new TreeSet<>();
        for (JoinGroupResponse.Member m : join.getMembersList()) {
            Subscription s = ConsumerProtocol.deserializeSubscription(m.getMetadata().toByteArray());
            subs.put(m.getMemberId(), s);
            allTopics.addAll(s.topics());
        }
        Map<String, Integer> counts = host.partitionCounts(allTopics, config.requestTimeoutMs());
        ConsumerPartitionAssignor.GroupAssignment result = assignor.assign(counts,
            new ConsumerPartitionAssignor.GroupSubscription(subs));
        for (String member : subs.keySet()) {
            Assignment a = result.assignments().getOrDefault(member, new Assignment(List.of()));
            sync.addAssignments(SyncGroupRequest.Assignment.newBuilder().setMemberId(member)
                .setAssignment(ByteString.copyFrom(ConsumerProtocol.serializeAssignment(a))));
        }
        LOG.info("group {}: leader {} assigned {} partitions of {} topics to {} members with {}", config.groupId(),
            join.getMemberId(), result.assignments().values().stream().mapToInt(a -> a.partitions().size()).sum(),
            counts.size(), subs.size(), assignor.name());
        return counts;
    }

    private void onJoinComplete(Generation g, byte[] assignmentBytes, Map<String, Integer> groupCounts) {
        Assignment assignment = ConsumerProtocol.deserializeAssignment(assignmentBytes);
        Set<TopicPartition> assigned = new TreeSet<>(assignment.partitions());
        Set<TopicPartition> revoked = new TreeSet<>();
        Set<TopicPartition> added = new TreeSet<>();
        synchronized (this) {
            if (protocol == RebalanceProtocol.COOPERATIVE) {
                owned.stream().filter(tp -> !assigned.contains(tp)).forEach(revoked::add);
                assigned.stream().filter(tp -> !owned.contains(tp)).forEach(added::add);
            } else {
                added.addAll(assigned);
            }
            Set<String> watched = new HashSet<>(joinedSubscription);
            if (groupCounts != null) {
                watched.addAll(groupCounts.keySet());
            }
            Map<String, Integer> counts = new HashMap<>(host.partitionCounts(watched, 0));
            if (groupCounts != null) {
                counts.putAll(groupCounts);
            }
            joinedPartitionCounts = counts;
            // Stable before the callbacks: a listener commits the offsets of what it gives up in this generation.
            state = MemberState.STABLE;
            notifyAll();
        }
        if (!revoked.isEmpty()) {
            invoke(() -> listener.onPartitionsRevoked(revoked), "onPartitionsRevoked");
        }
        synchronized (this) {
            owned.removeAll(revoked);
            owned.addAll(added);
            if (!revoked.isEmpty()) {
                // The partitions given up go to their new owners in the next rebalance.
                rejoinNeeded = true;
                rejoinReason = "revoked " + revoked.size() + " partitions that move to other members";
            }
        }
        assignors.get(g.protocolName()).onAssignment(assignment, g.generationId());
        LOG.info("group {}: member {} has generation {} with {} partitions (+{} -{})", config.groupId(), g.memberId(),
            g.generationId(), assigned.size(), added.size(), revoked.size());
        invoke(() -> listener.onPartitionsAssigned(added), "onPartitionsAssigned");
    }

    /** A subscription change or a new partition count of a watched topic calls for a rebalance. */
    private void detectChanges() {
        Set<String> topics = host.subscription();
        if (!topics.equals(joinedSubscription)) {
            requestRejoin("the subscription changed");
            return;
        }
        Map<String, Integer> now = host.partitionCounts(joinedPartitionCounts.keySet(), 0);
        for (Map.Entry<String, Integer> e : now.entrySet()) {
            Integer before = joinedPartitionCounts.get(e.getKey());
            if (before != null && !before.equals(e.getValue())) {
                requestRejoin("topic " + e.getKey() + " went from " + before + " to " + e.getValue() + " partitions");
                return;
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ fencing

    /** The coordinator no longer knows this member or its generation: its partitions are lost; it joins afresh. */
    private synchronized void fenced(String why) {
        LOG.info("group {}: member {} of generation {} was fenced: {}", config.groupId(), generation.memberId(),
            generation.generationId(), why);
        resetGeneration();
        partitionsLost = !owned.isEmpty();
        rejoinNeeded = true;
        rejoinReason = why;
    }

    private synchronized void resetGeneration() {
        generation = Generation.NO_GENERATION;
        leaderId = "";
        state = MemberState.UNJOINED;
    }

    /** On the consumer's thread: tells the listener about partitions lost to fencing. */
    private void handleLostPartitions() {
        Set<TopicPartition> lost;
        synchronized (this) {
            if (!partitionsLost) {
                return;
            }
            partitionsLost = false;
            lost = new TreeSet<>(owned);
            owned.clear();
        }
        if (!lost.isEmpty()) {
            invoke(() -> listener.onPartitionsLost(lost), "onPartitionsLost");
        }
    }

    private void revokeAll() {
        handleLostPartitions();
        Set<TopicPartition> all;
        synchronized (this) {
            all = new TreeSet<>(owned);
            owned.clear();
        }
        if (!all.isEmpty()) {
            invoke(() -> listener.onPartitionsRevoked(all), "onPartitionsRevoked");
        }
    }

    private void invoke(Runnable callback, String name) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.error("group {}: the rebalance listener's {} failed", config.groupId(), name, e);
            throw new RaftlineException("the rebalance listener's " + name + " failed: " + e.getMessage(), e);
        }
    }

    /** The coordinator this member talks to, or null while it is being looked up. */
    public Node coordinator() {
        return locator.coordinator();
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private OffsetCommitRequest commitRequest(Generation g, Map<TopicPartition, CommittedOffset> offsets) {
        OffsetCommitRequest.Builder b = OffsetCommitRequest.newBuilder().setGroupId(config.groupId())
            .setGenerationId(g.generationId()).setMemberId(g.memberId());
        Map<String, OffsetCommitRequest.Topic.Builder> topics = new TreeMap<>();
        new TreeMap<>(offsets).forEach((tp, o) -> topics.computeIfAbsent(tp.topic(),
            t -> OffsetCommitRequest.Topic.newBuilder().setName(t)).addPartitions(OffsetCommitRequest.Partition.newBuilder()
                .setPartition(tp.partition()).setCommittedOffset(o.offset()).setCommittedLeaderEpoch(o.leaderEpoch())
                .setMetadata(o.metadata())));
        topics.values().forEach(b::addTopics);
        return b.build();
    }

    private static ErrorCode firstError(OffsetCommitResponse r) {
        if (r.getError().getCode() != ErrorCode.NONE) {
            return r.getError().getCode();
        }
        for (OffsetCommitResponse.TopicResult t : r.getTopicsList()) {
            for (OffsetCommitResponse.PartitionResult p : t.getPartitionsList()) {
                if (p.getError().getCode() != ErrorCode.NONE) {
                    return p.getError().getCode();
                }
            }
        }
        return ErrorCode.NONE;
    }

    /** Wakes the heartbeat thread, which waits for a coordinator. */
    private synchronized void coordinatorFound() {
        notifyAll();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the group coordinator client is closed");
        }
    }

    // ------------------------------------------------------------------------------------------------ heartbeats

    /**
     * Sends a heartbeat every heartbeat.interval.ms while the member is in a generation, and leaves the group when the
     * consumer has not polled for max.poll.interval.ms (its partitions are then lost to it, as in Kafka).
     */
    private final class HeartbeatThread extends Thread {

        HeartbeatThread() {
            super("raftline-heartbeat-" + config.groupId() + (config.clientId().isEmpty() ? "" : "-" + config.clientId()));
            setDaemon(true);
        }

        @Override
        public void run() {
            long nextHeartbeatMs = 0;
            while (true) {
                Generation g;
                GroupChannel ch;
                synchronized (ConsumerCoordinator.this) {
                    if (closed) {
                        return;
                    }
                    long now = time.milliseconds();
                    boolean active = (state == MemberState.STABLE || state == MemberState.COMPLETING_REBALANCE)
                        && locator.current() != null;
                    if (state == MemberState.STABLE && now - lastPollMs > config.maxPollIntervalMs()) {
                        pollTimeout();
                        continue;
                    }
                    if (!active || now < nextHeartbeatMs) {
                        long waitMs = active ? nextHeartbeatMs - now : config.heartbeatIntervalMs();
                        if (state == MemberState.STABLE) {
                            waitMs = Math.min(waitMs, lastPollMs + config.maxPollIntervalMs() + 1 - now);
                        }
                        try {
                            ConsumerCoordinator.this.wait(Math.max(1, waitMs));
                        } catch (InterruptedException e) {
                            if (closed) {
                                return;
                            }
                        }
                        continue;
                    }
                    g = generation;
                    ch = locator.current();
                }
                nextHeartbeatMs = time.milliseconds() + beat(g, ch);
            }
        }

        /** Sends one heartbeat; returns how long to wait before the next. */
        private long beat(Generation g, GroupChannel ch) {
            ErrorCode code;
            try {
                HeartbeatRequest req = HeartbeatRequest.newBuilder().setGroupId(config.groupId())
                    .setGenerationId(g.generationId()).setMemberId(g.memberId()).build();
                code = ch.call(s -> s.heartbeat(req), config.requestTimeoutMs()).getError().getCode();
            } catch (RaftlineException e) {
                locator.failed(ch, e.toString());
                return config.retryBackoffMs();
            }
            synchronized (ConsumerCoordinator.this) {
                if (!generation.equals(g)) {
                    return 0; // a rejoin happened meanwhile: the answer is about an old generation
                }
                switch (code) {
                    case NONE -> {
                    }
                    case REBALANCE_IN_PROGRESS -> {
                        // Only news to a stable member. One already rejoining (its JoinGroup crossed this heartbeat)
                        // must not rejoin once more after it syncs: a leader's second join would start yet another
                        // rebalance, and so on. Kafka ignores it outside Stable too.
                        if (state == MemberState.STABLE) {
                            requestRejoin("the coordinator started a rebalance");
                        }
                    }
                    case ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID -> {
                        // While a JoinGroup is out, its answer decides: this heartbeat may have crossed a join that
                        // already moved the group to the next generation.
                        if (state != MemberState.PREPARING_REBALANCE) {
                            fenced("Heartbeat answered " + code);
                        }
                    }
                    case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> {
                        locator.failed(ch, code.name());
                        return config.retryBackoffMs();
                    }
                    case COORDINATOR_LOAD_IN_PROGRESS -> {
                        return config.retryBackoffMs();
                    }
                    default -> LOG.warn("group {}: heartbeat answered {}", config.groupId(), code);
                }
            }
            return config.heartbeatIntervalMs();
        }

        /** Under the monitor: the application stopped polling, so the member leaves rather than hold its partitions. */
        private void pollTimeout() {
            Generation g = generation;
            GroupChannel ch = locator.current();
            LOG.warn("group {}: member {} did not poll for max.poll.interval.ms ({} ms); leaving the group so its partitions "
                + "move to others. Process records faster or raise max.poll.interval.ms.", config.groupId(), g.memberId(),
                config.maxPollIntervalMs());
            fenced("max.poll.interval.ms passed between polls");
            if (ch != null && !g.memberId().isEmpty()) {
                // Fire and forget: the coordinator also drops the member after its session anyway.
                Thread t = new Thread(() -> {
                    try {
                        ch.call(s -> s.leaveGroup(LeaveGroupRequest.newBuilder().setGroupId(config.groupId())
                            .addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId(g.memberId())
                                .setReason("max.poll.interval.ms passed")).build()), config.requestTimeoutMs());
                    } catch (RaftlineException e) {
                        LOG.debug("LeaveGroup after a poll timeout failed", e);
                    }
                }, "raftline-leave-" + config.groupId());
                t.setDaemon(true);
                t.start();
            }
        }
    }

    /** For tests and the consumer's metrics: the member id of the leader of the current generation. */
    public synchronized String leaderId() {
        return leaderId;
    }
}
