package io.raftline.client.internals.consumer;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.OffsetAndMetadata;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The seam where consumer-group membership plugs into the consumer: joining and heartbeating with the group
 * coordinator, receiving assignments (written into {@link SubscriptionState#assignFromSubscribed}), auto-commit, and
 * committing and fetching offsets. The consumer calls it from its polling thread only. A consumer without
 * {@code group.id} has none, and the group operations refuse with a clear {@code IllegalStateException}.
 */
public interface GroupMembership extends AutoCloseable {

    /** Called at the start of every poll: heartbeats, rebalances, auto-commit; may block until {@code deadlineMs}. */
    void poll(long nowMs, long deadlineMs);

    /** Commits offsets; completes when the coordinator has written them. */
    CompletableFuture<Void> commit(Map<TopicPartition, OffsetAndMetadata> offsets);

    /** The committed offsets of these partitions (absent: none), waiting up to {@code deadlineMs}. */
    Map<TopicPartition, OffsetAndMetadata> fetchCommitted(Set<TopicPartition> partitions, long deadlineMs);

    /** Makes a poll waiting on the group coordinator return at once (the consumer's wakeup); any thread. */
    void wakeup();

    /** Leaves the group now (unsubscribe): the partitions are revoked through the listener first. */
    void leave();

    /** Leaves the group (committing first when auto-commit is on). */
    @Override
    void close();
}
