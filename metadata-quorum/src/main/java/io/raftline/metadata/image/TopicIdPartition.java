package io.raftline.metadata.image;

import io.raftline.common.Uuid;

/** One partition of a topic, named by the topic's id (names can be reused after a delete; ids cannot). */
public record TopicIdPartition(Uuid topicId, int partition) {
}
