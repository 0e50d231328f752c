package io.raftline.client.admin;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/** The outcome of {@link Admin#listTopics()}. */
public final class ListTopicsResult {

    private final CompletableFuture<Map<String, TopicListing>> future;

    ListTopicsResult(CompletableFuture<Map<String, TopicListing>> future) {
        this.future = future;
    }

    /** Listings by name, sorted. */
    public CompletableFuture<Map<String, TopicListing>> namesToListings() {
        return future.thenApply(TreeMap::new);
    }

    /** The listings. */
    public CompletableFuture<Collection<TopicListing>> listings() {
        return namesToListings().thenApply(Map::values);
    }

    /** The names. */
    public CompletableFuture<Set<String>> names() {
        return namesToListings().thenApply(m -> Set.copyOf(m.keySet()));
    }
}
