package io.raftline.client.admin;

import java.util.List;

/**
 * A topic as {@link Admin#describeTopics} reports it.
 *
 * @param name       the topic name
 * @param internal   whether it is internal
 * @param partitions its partitions, sorted by number
 * @param topicId    its id (22-char URL-safe base64), or null
 */
public record TopicDescription(String name, boolean internal, List<TopicPartitionInfo> partitions, String topicId) {

    /** Copies the list. */
    public TopicDescription {
        partitions = List.copyOf(partitions);
    }
}
