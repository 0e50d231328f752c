package io.raftline.client.consumer;

import io.raftline.client.common.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The records one {@code poll} returned, grouped by partition; within a partition in offset order.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class ConsumerRecords<K, V> implements Iterable<ConsumerRecord<K, V>> {

    private static final ConsumerRecords<Object, Object> EMPTY = new ConsumerRecords<>(Map.of());

    private final Map<TopicPartition, List<ConsumerRecord<K, V>>> records;

    /** Wraps records by partition. */
    public ConsumerRecords(Map<TopicPartition, List<ConsumerRecord<K, V>>> records) {
        this.records = Collections.unmodifiableMap(new LinkedHashMap<>(records));
    }

    /** No records. */
    @SuppressWarnings("unchecked")
    public static <K, V> ConsumerRecords<K, V> empty() {
        return (ConsumerRecords<K, V>) EMPTY;
    }

    /** The records of one partition. */
    public List<ConsumerRecord<K, V>> records(TopicPartition partition) {
        List<ConsumerRecord<K, V>> list = records.get(partition);
        return list == null ? List.of() : Collections.unmodifiableList(list);
    }

    /** The records of one topic, partition by partition. */
    public Iterable<ConsumerRecord<K, V>> records(String topic) {
        List<ConsumerRecord<K, V>> out = new ArrayList<>();
        records.forEach((tp, list) -> {
            if (tp.topic().equals(topic)) {
                out.addAll(list);
            }
        });
        return out;
    }

    /** The partitions that have records here. */
    public Set<TopicPartition> partitions() {
        return records.keySet();
    }

    /** The number of records. */
    public int count() {
        int n = 0;
        for (List<ConsumerRecord<K, V>> l : records.values()) {
            n += l.size();
        }
        return n;
    }

    /** Whether there are none. */
    public boolean isEmpty() {
        return count() == 0;
    }

    @Override
    public Iterator<ConsumerRecord<K, V>> iterator() {
        List<ConsumerRecord<K, V>> all = new ArrayList<>();
        records.values().forEach(all::addAll);
        return Collections.unmodifiableList(all).iterator();
    }
}
