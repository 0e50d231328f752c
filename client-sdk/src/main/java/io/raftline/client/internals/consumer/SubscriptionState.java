package io.raftline.client.internals.consumer;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.ConsumerRebalanceListener;
import io.raftline.client.consumer.OffsetResetStrategy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the consumer reads and where it is: the assigned partitions with their positions, pause flags, pending
 * resets and last known high watermarks, and the subscription (topics or pattern) when a group assigns partitions.
 * Owned by the thread that polls; not thread-safe.
 *
 * <p>States of the subscription: NONE → USER_ASSIGNED (assign) or AUTO_TOPICS / AUTO_PATTERN (subscribe), back to
 * NONE on unsubscribe. Mixing assign and subscribe is refused, as in Kafka.
 */
public final class SubscriptionState {

    /** How partitions got assigned. */
    public enum Type { NONE, USER_ASSIGNED, AUTO_TOPICS, AUTO_PATTERN }

    /** One assigned partition's state. */
    static final class PartitionState {
        Long position;
        Integer positionEpoch;
        boolean paused;
        OffsetResetStrategy resetPending;
        /** Assigned by a group: the position comes from the group's committed offset once it is fetched. */
        boolean awaitingCommitted;
        long highWatermark = -1;
        long logStartOffset = -1;
    }

    private final OffsetResetStrategy defaultReset;
    private final Map<TopicPartition, PartitionState> assignment = new LinkedHashMap<>();
    private Type type = Type.NONE;
    private Set<String> topics = Set.of();
    private Pattern pattern;
    private ConsumerRebalanceListener listener;

    /** @param defaultReset the {@code auto.offset.reset} strategy */
    public SubscriptionState(OffsetResetStrategy defaultReset) {
        this.defaultReset = defaultReset;
    }

    /** How partitions got assigned. */
    public Type type() {
        return type;
    }

    private void setType(Type wanted) {
        if (type != Type.NONE && type != wanted) {
            throw new IllegalStateException("Subscription to topics, partitions and pattern are mutually exclusive");
        }
        type = wanted;
    }

    /** Assigns partitions by hand; keeps the positions of partitions that stay. */
    public void assignFromUser(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            unsubscribe();
            return;
        }
        setType(Type.USER_ASSIGNED);
        replaceAssignment(partitions);
    }

    /** Subscribes to topics (a group will assign partitions). */
    public void subscribe(Set<String> topicNames, ConsumerRebalanceListener rebalanceListener) {
        setType(Type.AUTO_TOPICS);
        this.topics = Set.copyOf(topicNames);
        this.listener = rebalanceListener;
    }

    /** Subscribes to a pattern (a group will assign partitions). */
    public void subscribe(Pattern topicPattern, ConsumerRebalanceListener rebalanceListener) {
        setType(Type.AUTO_PATTERN);
        this.pattern = topicPattern;
        this.listener = rebalanceListener;
    }

    /** Sets the partitions a group assigned (for the group membership to call). */
    public void assignFromSubscribed(Collection<TopicPartition> partitions) {
        if (type != Type.AUTO_TOPICS && type != Type.AUTO_PATTERN) {
            throw new IllegalStateException("Not subscribed");
        }
        replaceAssignment(partitions);
    }

    private void replaceAssignment(Collection<TopicPartition> partitions) {
        Map<TopicPartition, PartitionState> next = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            PartitionState s = assignment.get(tp);
            next.put(tp, s != null ? s : new PartitionState());
        }
        assignment.clear();
        assignment.putAll(next);
    }

    /** Drops everything. */
    public void unsubscribe() {
        assignment.clear();
        topics = Set.of();
        pattern = null;
        listener = null;
        type = Type.NONE;
    }

    /** The subscribed topics. */
    public Set<String> subscription() {
        return topics;
    }

    /** The subscribed pattern, or null. */
    public Pattern pattern() {
        return pattern;
    }

    /** The rebalance listener, or null. */
    public ConsumerRebalanceListener listener() {
        return listener;
    }

    /** The assigned partitions, in assignment order. */
    public Set<TopicPartition> assignedPartitions() {
        return new LinkedHashSet<>(assignment.keySet());
    }

    /** Whether {@code tp} is assigned. */
    public boolean isAssigned(TopicPartition tp) {
        return assignment.containsKey(tp);
    }

    private PartitionState state(TopicPartition tp) {
        PartitionState s = assignment.get(tp);
        if (s == null) {
            throw new IllegalStateException("No current assignment for partition " + tp);
        }
        return s;
    }

    /** Partitions to fetch now: assigned, not paused, with a valid position. */
    public List<TopicPartition> fetchablePartitions() {
        List<TopicPartition> out = new ArrayList<>();
        assignment.forEach((tp, s) -> {
            if (!s.paused && s.position != null && s.resetPending == null && !s.awaitingCommitted) {
                out.add(tp);
            }
        });
        return out;
    }

    /** Partitions whose position must be found (none yet, or a reset was asked for). */
    public List<TopicPartition> partitionsNeedingReset() {
        List<TopicPartition> out = new ArrayList<>();
        assignment.forEach((tp, s) -> {
            if (s.resetPending != null || (s.position == null && !s.awaitingCommitted)) {
                out.add(tp);
            }
        });
        return out;
    }

    /**
     * Marks a partition whose position is to come from the group's committed offset: it is neither fetched nor reset
     * by {@code auto.offset.reset} until {@link #seek} sets it or {@link #committedNotFound} says there is none.
     */
    public void awaitCommitted(TopicPartition tp) {
        PartitionState s = state(tp);
        if (s.position == null && s.resetPending == null) {
            s.awaitingCommitted = true;
        }
    }

    /** The group has no committed offset for {@code tp}: {@code auto.offset.reset} applies. */
    public void committedNotFound(TopicPartition tp) {
        PartitionState s = assignment.get(tp);
        if (s != null) {
            s.awaitingCommitted = false;
        }
    }

    /** Partitions waiting for their committed offset. */
    public Set<TopicPartition> partitionsAwaitingCommitted() {
        Set<TopicPartition> out = new LinkedHashSet<>();
        assignment.forEach((tp, s) -> {
            if (s.awaitingCommitted) {
                out.add(tp);
            }
        });
        return out;
    }

    /** The strategy that applies to a partition needing a reset. */
    public OffsetResetStrategy resetStrategy(TopicPartition tp) {
        PartitionState s = state(tp);
        return s.resetPending != null ? s.resetPending : defaultReset;
    }

    /** The configured {@code auto.offset.reset}. */
    public OffsetResetStrategy defaultResetStrategy() {
        return defaultReset;
    }

    /** Asks for the position to be reset with {@code strategy} before the next fetch. */
    public void requestReset(TopicPartition tp, OffsetResetStrategy strategy) {
        PartitionState s = state(tp);
        s.resetPending = strategy;
        s.awaitingCommitted = false;
    }

    /** Sets the position (a seek, a reset, or progress). */
    public void seek(TopicPartition tp, long offset, Integer epoch) {
        PartitionState s = state(tp);
        s.position = offset;
        s.positionEpoch = epoch;
        s.resetPending = null;
        s.awaitingCommitted = false;
    }

    /** The leader epoch that goes with the position, or null when unknown. */
    public Integer positionEpoch(TopicPartition tp) {
        return state(tp).positionEpoch;
    }

    /** The position, or null when it is not known yet. */
    public Long position(TopicPartition tp) {
        return state(tp).position;
    }

    /** Records what a fetch said about the partition's log. */
    public void updateLogBounds(TopicPartition tp, long highWatermark, long logStartOffset) {
        PartitionState s = assignment.get(tp);
        if (s != null) {
            s.highWatermark = highWatermark;
            s.logStartOffset = logStartOffset;
        }
    }

    /** High watermark minus position, or null when either is unknown. */
    public Long lag(TopicPartition tp) {
        PartitionState s = assignment.get(tp);
        if (s == null || s.position == null || s.highWatermark < 0) {
            return null;
        }
        return Math.max(0, s.highWatermark - s.position);
    }

    /** Pauses fetching. */
    public void pause(TopicPartition tp) {
        state(tp).paused = true;
    }

    /** Resumes fetching. */
    public void resume(TopicPartition tp) {
        state(tp).paused = false;
    }

    /** The paused partitions. */
    public Set<TopicPartition> pausedPartitions() {
        Set<TopicPartition> out = new LinkedHashSet<>();
        assignment.forEach((tp, s) -> {
            if (s.paused) {
                out.add(tp);
            }
        });
        return out;
    }
}
