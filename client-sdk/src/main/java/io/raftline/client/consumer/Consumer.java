package io.raftline.client.consumer;

import io.raftline.client.common.MetricName;

import io.raftline.client.common.PartitionInfo;
import io.raftline.client.common.TopicPartition;
import java.io.Closeable;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads records from a Raftline cluster, shaped like Kafka's {@code Consumer}. Not thread-safe: one thread polls;
 * only {@link #wakeup()} may be called from another thread.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface Consumer<K, V> extends Closeable {

    /** Reads exactly these partitions, without a group. Replaces the previous assignment. */
    void assign(Collection<TopicPartition> partitions);

    /** The partitions currently assigned. */
    Set<TopicPartition> assignment();

    /** Joins the group ({@code group.id}) for these topics. */
    void subscribe(Collection<String> topics);

    /** Joins the group for these topics, telling {@code listener} about rebalances. */
    void subscribe(Collection<String> topics, ConsumerRebalanceListener listener);

    /** Joins the group for the topics matching {@code pattern} (internal topics excluded). */
    void subscribe(Pattern pattern);

    /** Joins the group for the topics matching {@code pattern}, telling {@code listener} about rebalances. */
    void subscribe(Pattern pattern, ConsumerRebalanceListener listener);

    /** The subscribed topics (empty when assigned by hand). */
    Set<String> subscription();

    /** Drops the subscription or assignment. */
    void unsubscribe();

    /** Returns available records, waiting up to {@code timeout} for some. */
    ConsumerRecords<K, V> poll(Duration timeout);

    /** Commits the positions of every assigned partition. Needs a group. */
    void commitSync();

    /** Commits the positions, waiting at most {@code timeout}. Needs a group. */
    void commitSync(Duration timeout);

    /** Commits the given offsets. Needs a group. */
    void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets);

    /** Commits these offsets, waiting up to {@code timeout}. */
    void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout);

    /** Commits the positions without waiting. Needs a group. */
    void commitAsync();

    /** Commits the positions without waiting, then calls {@code callback}. Needs a group. */
    void commitAsync(OffsetCommitCallback callback);

    /** Commits the given offsets without waiting. Needs a group. */
    void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback);

    /** The committed offsets of these partitions (null for none). Needs a group. */
    Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions);

    /** Moves the position of {@code partition}: the next poll returns records from {@code offset}. */
    void seek(TopicPartition partition, long offset);

    /** Moves the position to the given offset. */
    void seek(TopicPartition partition, OffsetAndMetadata offsetAndMetadata);

    /** Moves the positions to the log start (evaluated lazily, at the next poll or position). */
    void seekToBeginning(Collection<TopicPartition> partitions);

    /** Moves the positions to the high watermark (evaluated lazily). */
    void seekToEnd(Collection<TopicPartition> partitions);

    /** The offset of the next record to read, resolving a reset if needed (up to {@code default.api.timeout.ms}). */
    long position(TopicPartition partition);

    /** As {@link #position(TopicPartition)}, waiting at most {@code timeout}. */
    long position(TopicPartition partition, Duration timeout);

    /** The log start offsets. */
    Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions);

    /** The high watermarks. */
    Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions);

    /** For each partition, the first offset with a timestamp at or after the one given; null when there is none. */
    Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestampsToSearch);

    /** Stops fetching these partitions until resumed; positions are kept. */
    void pause(Collection<TopicPartition> partitions);

    /** Resumes fetching. */
    void resume(Collection<TopicPartition> partitions);

    /** The paused partitions. */
    Set<TopicPartition> paused();

    /**
     * The partitions of {@code topic} from a fresh metadata answer; empty when the topic does not exist. Failed
     * refreshes are retried every retry.backoff.ms.
     *
     * @throws io.raftline.client.errors.TimeoutException no broker answered within default.api.timeout.ms
     */
    List<PartitionInfo> partitionsFor(String topic);

    /** Every topic the cluster has, with its partitions. */
    Map<String, List<PartitionInfo>> listTopics();

    /** Makes a blocked or the next {@code poll} (or other blocking call) throw {@code WakeupException}. Thread-safe. */
    void wakeup();

    /** Closes the consumer. */
    @Override
    void close();

    /** Closes the consumer, waiting at most {@code timeout}. */
    void close(Duration timeout);

    /**
     * The client's own metrics as they are now: each statistic of each meter (records sent, errors, batch sizes,
     * request latency per broker ...), named with its tags. The same meters go to the application's registry when
     * one was given.
     */
    Map<MetricName, Double> metrics();
}
