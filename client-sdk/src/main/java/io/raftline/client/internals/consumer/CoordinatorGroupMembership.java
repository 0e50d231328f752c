package io.raftline.client.internals.consumer;

import io.raftline.client.common.Cluster;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.ConsumerConfig;
import io.raftline.client.consumer.ConsumerRebalanceListener;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor;
import io.raftline.client.consumer.internals.group.CommittedOffset;
import io.raftline.client.consumer.internals.group.ConsumerCoordinator;
import io.raftline.client.consumer.internals.group.GroupHost;
import io.raftline.client.consumer.internals.group.GroupMembershipConfig;
import io.raftline.client.consumer.internals.group.GroupRebalanceListener;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.internals.metadata.Metadata;
import io.raftline.common.Time;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link GroupMembership} over {@link ConsumerCoordinator}: turns the coordinator's rebalance callbacks into changes
 * of the consumer's {@link SubscriptionState} and calls to the application's {@link ConsumerRebalanceListener}, takes
 * the positions of newly assigned partitions from the group's committed offsets (or leaves them to
 * {@code auto.offset.reset} when the group has none), and auto-commits: every {@code auto.commit.interval.ms} at a
 * poll, before partitions are revoked, and on close.
 *
 * <p>Everything but the commit futures runs on the consumer's polling thread (the coordinator calls its listener
 * there too); asynchronous commits complete, and call back, on the coordinator's commit thread.
 */
public final class CoordinatorGroupMembership implements GroupMembership {

    private static final Logger LOG = LoggerFactory.getLogger(CoordinatorGroupMembership.class);

    private final String groupId;
    private final SubscriptionState subscriptions;
    private final Metadata metadata;
    private final Consumer<Set<TopicPartition>> dropBuffered;
    private final Consumer<Map<TopicPartition, OffsetAndMetadata>> onCommitted;
    private final Time time;
    private final boolean autoCommit;
    private final long autoCommitIntervalMs;
    private final long requestTimeoutMs;
    private final ConsumerCoordinator coordinator;
    private long nextAutoCommitMs;
    /** What this member last committed, so an idle consumer does not commit the same positions again and again. */
    private final Map<TopicPartition, Long> lastCommitted = new HashMap<>();

    /**
     * @param dropBuffered  drops fetched records of partitions the consumer gives up
     * @param onCommitted   told of every successful commit (the consumer's interceptors' onCommit)
     */
    public CoordinatorGroupMembership(ConsumerConfig config, String clientId, SubscriptionState subscriptions, Metadata metadata,
                                      Consumer<Set<TopicPartition>> dropBuffered,
                                      Consumer<Map<TopicPartition, OffsetAndMetadata>> onCommitted, Time time) {
        this.groupId = config.getString(ConsumerConfig.GROUP_ID_CONFIG);
        this.subscriptions = subscriptions;
        this.metadata = metadata;
        this.dropBuffered = dropBuffered;
        this.onCommitted = onCommitted;
        this.time = time;
        this.autoCommit = config.getBoolean(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
        this.autoCommitIntervalMs = config.getInt(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG);
        this.requestTimeoutMs = config.getInt(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG);
        List<ConsumerPartitionAssignor> assignors = new ArrayList<>();
        for (String name : config.getList(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG)) {
            assignors.add(ConsumerPartitionAssignor.forName(name));
        }
        GroupMembershipConfig gc = GroupMembershipConfig.from(config);
        gc = new GroupMembershipConfig(gc.groupId(), clientId, gc.sessionTimeoutMs(), gc.heartbeatIntervalMs(),
            gc.maxPollIntervalMs(), gc.requestTimeoutMs(), gc.retryBackoffMs(), gc.security());
        this.nextAutoCommitMs = time.milliseconds() + autoCommitIntervalMs;
        this.coordinator = new ConsumerCoordinator(gc, new Host(), new Listener(), assignors, time);
    }

    /** The coordinator client, for tests and metrics. */
    public ConsumerCoordinator coordinator() {
        return coordinator;
    }

    @Override
    public void poll(long nowMs, long deadlineMs) {
        if (subscriptions.type() == SubscriptionState.Type.AUTO_TOPICS || subscriptions.type() == SubscriptionState.Type.AUTO_PATTERN) {
            coordinator.poll(Math.max(0, deadlineMs - nowMs));
        }
        resolveCommitted(time.milliseconds() + Math.max(0, Math.min(requestTimeoutMs, deadlineMs - nowMs)));
        long now = time.milliseconds();
        if (autoCommit && now >= nextAutoCommitMs) {
            nextAutoCommitMs = now + autoCommitIntervalMs;
            Map<TopicPartition, OffsetAndMetadata> positions = changedPositions(subscriptions.assignedPartitions());
            if (!positions.isEmpty() && canCommit()) {
                commit(positions).whenComplete((v, e) -> {
                    if (e != null) {
                        LOG.warn("group {}: auto-commit of {} partitions failed: {}", groupId, positions.size(), e.toString());
                    }
                });
            }
        }
    }

    /** Commits are refused while the member is joining; an assign-mode consumer (never joined) may always commit. */
    private boolean canCommit() {
        ConsumerCoordinator.MemberState s = coordinator.state();
        return s == ConsumerCoordinator.MemberState.STABLE
            || (s == ConsumerCoordinator.MemberState.UNJOINED && coordinator.generation().memberId().isEmpty());
    }

    @Override
    public CompletableFuture<Void> commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<TopicPartition, OffsetAndMetadata> copy = Map.copyOf(offsets);
        Map<TopicPartition, CommittedOffset> wire = new LinkedHashMap<>();
        copy.forEach((tp, o) -> wire.put(tp, new CommittedOffset(o.offset(), o.leaderEpoch().orElse(-1), o.metadata())));
        return coordinator.commitAsync(wire).thenRun(() -> {
            synchronized (lastCommitted) {
                copy.forEach((tp, o) -> lastCommitted.put(tp, o.offset()));
            }
            onCommitted.accept(copy);
        });
    }

    private void commitSyncQuietly(Map<TopicPartition, OffsetAndMetadata> offsets, String why) {
        if (offsets.isEmpty() || !canCommit()) {
            return;
        }
        try {
            commit(offsets).get(requestTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.warn("group {}: auto-commit {} failed: {}", groupId, why, e.getCause() == null ? e : e.getCause());
        }
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> fetchCommitted(Set<TopicPartition> partitions, long deadlineMs) {
        Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
        coordinator.fetchCommitted(partitions, Math.max(1, deadlineMs - time.hiResMilliseconds())).forEach((tp, c) ->
            out.put(tp, new OffsetAndMetadata(c.offset(), c.leaderEpoch() < 0 ? Optional.empty() : Optional.of(c.leaderEpoch()),
                c.metadata())));
        return out;
    }

    @Override
    public void wakeup() {
        coordinator.wakeup();
    }

    @Override
    public void leave() {
        coordinator.leaveGroup("the consumer unsubscribed", requestTimeoutMs);
    }

    @Override
    public void close() {
        try {
            if (autoCommit && subscriptions.type() == SubscriptionState.Type.USER_ASSIGNED) {
                commitSyncQuietly(changedPositions(subscriptions.assignedPartitions()), "on close");
            }
        } finally {
            // Leaving revokes the partitions, and the revocation auto-commits them.
            coordinator.close();
        }
    }

    /** Positions that differ from what this member last committed. */
    private Map<TopicPartition, OffsetAndMetadata> changedPositions(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
        synchronized (lastCommitted) {
            for (TopicPartition tp : partitions) {
                if (!subscriptions.isAssigned(tp)) {
                    continue;
                }
                Long p = subscriptions.position(tp);
                if (p != null && !p.equals(lastCommitted.get(tp))) {
                    Integer epoch = subscriptions.positionEpoch(tp);
                    out.put(tp, new OffsetAndMetadata(p, Optional.ofNullable(epoch), ""));
                }
            }
        }
        return out;
    }

    /**
     * Sets the positions of partitions waiting for their committed offset; a partition the group has no offset for
     * goes to auto.offset.reset. A failed lookup leaves them waiting for the next poll (never a reset in its place).
     */
    private void resolveCommitted(long deadlineMs) {
        Set<TopicPartition> waiting = subscriptions.partitionsAwaitingCommitted();
        if (waiting.isEmpty()) {
            return;
        }
        Map<TopicPartition, CommittedOffset> found;
        try {
            found = coordinator.fetchCommitted(waiting, Math.max(1, deadlineMs - time.milliseconds()));
        } catch (RaftlineException e) {
            LOG.debug("group {}: committed offsets not fetched yet: {}", groupId, e.toString());
            return;
        }
        for (TopicPartition tp : waiting) {
            if (!subscriptions.isAssigned(tp)) {
                continue;
            }
            CommittedOffset c = found.get(tp);
            if (c == null) {
                subscriptions.committedNotFound(tp);
            } else {
                subscriptions.seek(tp, c.offset(), c.leaderEpoch() < 0 ? null : c.leaderEpoch());
                synchronized (lastCommitted) {
                    lastCommitted.put(tp, c.offset());
                }
            }
        }
    }

    private boolean subscribed() {
        SubscriptionState.Type t = subscriptions.type();
        return t == SubscriptionState.Type.AUTO_TOPICS || t == SubscriptionState.Type.AUTO_PATTERN;
    }

    /** The coordinator's rebalance events, applied to the subscription state and passed to the application. */
    private final class Listener implements GroupRebalanceListener {

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (autoCommit) {
                commitSyncQuietly(changedPositions(partitions), "before a rebalance");
            }
            ConsumerRebalanceListener user = subscriptions.listener();
            try {
                if (user != null) {
                    user.onPartitionsRevoked(partitions);
                }
            } finally {
                drop(partitions);
            }
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            ConsumerRebalanceListener user = subscriptions.listener();
            try {
                if (user != null) {
                    user.onPartitionsLost(partitions);
                }
            } finally {
                drop(partitions);
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (!subscribed()) {
                return;
            }
            subscriptions.assignFromSubscribed(coordinator.assignment());
            Set<String> topics = new TreeSet<>();
            partitions.forEach(tp -> {
                topics.add(tp.topic());
                subscriptions.awaitCommitted(tp);
            });
            metadata.addTopics(topics);
            // Positions before the application's callback, so a seek there wins over the committed offset.
            resolveCommitted(time.milliseconds() + requestTimeoutMs);
            ConsumerRebalanceListener user = subscriptions.listener();
            if (user != null) {
                user.onPartitionsAssigned(partitions);
            }
        }

        private void drop(Collection<TopicPartition> partitions) {
            Set<TopicPartition> gone = new TreeSet<>(partitions);
            dropBuffered.accept(gone);
            synchronized (lastCommitted) {
                gone.forEach(lastCommitted::remove);
            }
            if (subscribed()) {
                List<TopicPartition> keep = new ArrayList<>(subscriptions.assignedPartitions());
                keep.removeAll(gone);
                subscriptions.assignFromSubscribed(keep);
            }
        }
    }

    /** What the coordinator asks of the consumer: the subscribed topics, brokers and partition counts. */
    private final class Host implements GroupHost {

        @Override
        public Set<String> subscription() {
            SubscriptionState.Type t = subscriptions.type();
            if (t == SubscriptionState.Type.AUTO_TOPICS) {
                return subscriptions.subscription();
            }
            if (t == SubscriptionState.Type.AUTO_PATTERN) {
                Pattern p = subscriptions.pattern();
                Cluster c = metadata.cluster();
                Set<String> out = new TreeSet<>();
                for (String topic : c.topics()) {
                    if (!c.internalTopics().contains(topic) && p.matcher(topic).matches()) {
                        out.add(topic);
                    }
                }
                return out;
            }
            return Set.of();
        }

        @Override
        public List<Node> brokers() {
            List<Node> out = new ArrayList<>();
            for (Node n : metadata.cluster().nodes()) {
                if (n.id() != Node.NO_ID) {
                    out.add(n);
                }
            }
            if (out.isEmpty()) {
                out.add(metadata.pickNode());
            }
            return out;
        }

        @Override
        public Map<String, Integer> partitionCounts(Set<String> topics, long timeoutMs) {
            metadata.addTopics(topics);
            Map<String, Integer> known = known(topics);
            if (known.size() == topics.size() || timeoutMs <= 0) {
                metadata.maybeRefresh();
                return known;
            }
            // One refresh answers for every topic: one that is still missing afterwards does not exist.
            try {
                metadata.refresh().get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                LOG.debug("group {}: metadata refresh for partition counts failed: {}", groupId, e.toString());
            }
            return known(topics);
        }

        private Map<String, Integer> known(Set<String> topics) {
            Map<String, Integer> out = new HashMap<>();
            Cluster c = metadata.cluster();
            for (String t : topics) {
                Integer n = c.partitionCountForTopic(t);
                if (n != null && n > 0) {
                    out.put(t, n);
                }
            }
            return out;
        }
    }
}
