package io.raftline.client.admin;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The outcome of {@link Admin#deleteTopics}: one future per topic. */
public final class DeleteTopicsResult {

    private final Map<String, CompletableFuture<Void>> futures;

    DeleteTopicsResult(Map<String, CompletableFuture<Void>> futures) {
        this.futures = Map.copyOf(futures);
    }

    /** One future per item. */
    public Map<String, CompletableFuture<Void>> topicNameValues() {
        return futures;
    }

    /** Completes when every item succeeded; fails with the first item's error otherwise. */
    public CompletableFuture<Void> all() {
        return CompletableFuture.allOf(futures.values().toArray(new CompletableFuture<?>[0]));
    }
}
