package io.raftline.client.common;

import java.util.Objects;

/**
 * A topic name and a partition number: the unit of ordering and of assignment.
 *
 * @param topic     the topic name, never null
 * @param partition the partition number, 0-based
 */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {

    /** Validates the parts. */
    public TopicPartition {
        Objects.requireNonNull(topic, "topic");
    }

    @Override
    public int compareTo(TopicPartition o) {
        int c = topic.compareTo(o.topic);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }

    /** Kafka's spelling, {@code topic-partition}. */
    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
