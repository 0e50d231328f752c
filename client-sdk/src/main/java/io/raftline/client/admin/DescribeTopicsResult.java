package io.raftline.client.admin;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The outcome of {@link Admin#describeTopics}: one future per topic. */
public final class DescribeTopicsResult {

    private final Map<String, CompletableFuture<TopicDescription>> futures;

    DescribeTopicsResult(Map<String, CompletableFuture<TopicDescription>> futures) {
        this.futures = Map.copyOf(futures);
    }

    /** One future per item. */
    public Map<String, CompletableFuture<TopicDescription>> topicNameValues() {
        return futures;
    }

    /** Every item's value once all succeeded; fails with the first item's error otherwise. */
    public CompletableFuture<Map<String, TopicDescription>> allTopicNames() {
        return CompletableFuture.allOf(futures.values().toArray(new CompletableFuture<?>[0])).thenApply(ignored -> {
            Map<String, TopicDescription> out = new LinkedHashMap<>();
            futures.forEach((key, f) -> out.put(key, f.join()));
            return out;
        });
    }
}
