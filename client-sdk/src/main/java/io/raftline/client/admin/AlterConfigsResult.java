package io.raftline.client.admin;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The outcome of {@link Admin#incrementalAlterConfigs}: one future per resource. */
public final class AlterConfigsResult {

    private final Map<ConfigResource, CompletableFuture<Void>> futures;

    AlterConfigsResult(Map<ConfigResource, CompletableFuture<Void>> futures) {
        this.futures = Map.copyOf(futures);
    }

    /** One future per item. */
    public Map<ConfigResource, CompletableFuture<Void>> values() {
        return futures;
    }

    /** Completes when every item succeeded; fails with the first item's error otherwise. */
    public CompletableFuture<Void> all() {
        return CompletableFuture.allOf(futures.values().toArray(new CompletableFuture<?>[0]));
    }
}
