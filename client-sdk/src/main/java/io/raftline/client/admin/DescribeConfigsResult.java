package io.raftline.client.admin;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The outcome of {@link Admin#describeConfigs}: one future per resource. */
public final class DescribeConfigsResult {

    private final Map<ConfigResource, CompletableFuture<Config>> futures;

    DescribeConfigsResult(Map<ConfigResource, CompletableFuture<Config>> futures) {
        this.futures = Map.copyOf(futures);
    }

    /** One future per item. */
    public Map<ConfigResource, CompletableFuture<Config>> values() {
        return futures;
    }

    /** Every item's value once all succeeded; fails with the first item's error otherwise. */
    public CompletableFuture<Map<ConfigResource, Config>> all() {
        return CompletableFuture.allOf(futures.values().toArray(new CompletableFuture<?>[0])).thenApply(ignored -> {
            Map<ConfigResource, Config> out = new LinkedHashMap<>();
            futures.forEach((key, f) -> out.put(key, f.join()));
            return out;
        });
    }
}
