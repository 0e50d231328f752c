package io.raftline.client.consumer;

import io.raftline.client.common.TopicPartition;
import java.util.Map;

/** Told when an asynchronous commit completes. */
@FunctionalInterface
public interface OffsetCommitCallback {

    /** @param exception null on success */
    void onComplete(Map<TopicPartition, OffsetAndMetadata> offsets, Exception exception);
}
