package io.raftline.client.examples;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.Consumer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.ConsumerRecords;
import io.raftline.client.consumer.OffsetAndMetadata;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The three delivery semantics of a consumer in a group, as recipes. Each runs one poll-and-process round; call it in
 * a loop. The consumer must have {@code group.id}, be subscribed, and have {@code enable.auto.commit=false}.
 *
 * <ul>
 *   <li><b>At most once</b> ({@link #atMostOnce}): commit the positions first, then process. A crash while processing
 *       loses the records of that poll (they are committed) but never processes one twice.</li>
 *   <li><b>At least once</b> ({@link #atLeastOnce}): process, then commit. A crash before the commit processes those
 *       records again after the restart (or on the member that takes the partition over) but never loses one.</li>
 *   <li><b>Effectively once</b> ({@link #effectivelyOnce}): the output and the highest offset processed per
 *       partition are stored together, atomically, in the application's own store ({@link OutputStore}); records at or
 *       below the stored offset are skipped, so replays after a crash change nothing. Committing to the group is then
 *       only a hint of where to start; the store's offsets are the truth, and the consumer seeks to them when it gets
 *       a partition (see {@link #seekToStored}).</li>
 * </ul>
 */
public final class DeliverySemantics {

    private DeliverySemantics() {
    }

    /** What the application does with one record. */
    @FunctionalInterface
    public interface Processor<K, V> {
        void process(ConsumerRecord<K, V> record);
    }

    /** At most once: commit what was polled, then process it. Returns the number of records polled. */
    public static <K, V> int atMostOnce(Consumer<K, V> consumer, Duration pollTimeout, Processor<K, V> processor) {
        ConsumerRecords<K, V> records = consumer.poll(pollTimeout);
        if (records.isEmpty()) {
            return 0;
        }
        consumer.commitSync(); // the positions are past these records: a crash below loses them, never repeats them
        for (ConsumerRecord<K, V> r : records) {
            processor.process(r);
        }
        return records.count();
    }

    /** At least once: process what was polled, then commit it. Returns the number of records polled. */
    public static <K, V> int atLeastOnce(Consumer<K, V> consumer, Duration pollTimeout, Processor<K, V> processor) {
        ConsumerRecords<K, V> records = consumer.poll(pollTimeout);
        if (records.isEmpty()) {
            return 0;
        }
        for (ConsumerRecord<K, V> r : records) {
            processor.process(r);
        }
        consumer.commitSync(nextOffsets(records)); // a crash before this line processes these records again
        return records.count();
    }

    /**
     * The application's store for effectively-once processing: the output of a record and the partition's highest
     * processed offset change together, in one atomic write (a database transaction, a file renamed into place).
     */
    public interface OutputStore<K, V> {
        /** The highest offset of {@code partition} whose output is stored, or -1. */
        long highestProcessed(TopicPartition partition);

        /** Stores the output of {@code record} and, in the same atomic write, its offset as the partition's highest. */
        void storeWithOffset(ConsumerRecord<K, V> record);
    }

    /**
     * Effectively once: skips records the store already has, stores the rest with their offsets, then commits (a
     * hint for where to start). Returns the number of records stored this round.
     */
    public static <K, V> int effectivelyOnce(Consumer<K, V> consumer, Duration pollTimeout, OutputStore<K, V> store) {
        ConsumerRecords<K, V> records = consumer.poll(pollTimeout);
        int stored = 0;
        for (ConsumerRecord<K, V> r : records) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            if (r.offset() <= store.highestProcessed(tp)) {
                continue; // seen before a crash or a rebalance: its output is already stored
            }
            store.storeWithOffset(r);
            stored++;
        }
        if (!records.isEmpty()) {
            try {
                consumer.commitSync(nextOffsets(records));
            } catch (RuntimeException e) {
                // Only a hint: the store's offsets decide what is skipped, so a failed commit loses nothing.
            }
        }
        return stored;
    }

    /**
     * For effectively once: in {@code onPartitionsAssigned}, start each new partition after the store's highest
     * processed offset (rather than at the group's commit, which may lag behind the store).
     */
    public static <K, V> void seekToStored(Consumer<K, V> consumer, Iterable<TopicPartition> assigned, OutputStore<K, V> store) {
        for (TopicPartition tp : assigned) {
            long highest = store.highestProcessed(tp);
            if (highest >= 0) {
                consumer.seek(tp, highest + 1);
            }
        }
    }

    /** The offsets to commit after processing {@code records}: one past the last record of each partition. */
    public static <K, V> Map<TopicPartition, OffsetAndMetadata> nextOffsets(ConsumerRecords<K, V> records) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (ConsumerRecord<K, V> r : records) {
            out.merge(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1),
                (a, b) -> a.offset() >= b.offset() ? a : b);
        }
        return out;
    }
}
