package io.raftline.client.internals.consumer;

import io.raftline.client.internals.retry.ExponentialBackoff;
import java.util.HashMap;
import java.util.Map;

/**
 * Per broker, how long the fetcher leaves it alone after fetches that did not reach it (a dead or unreachable
 * broker): {@code reconnect.backoff.ms}, doubled after each consecutive failure up to {@code reconnect.backoff.max.ms},
 * spread by the clients' 20% jitter ({@link ExponentialBackoff}), as kafka-clients backs off reconnecting to a node. A
 * fetch that reaches the broker (any answer) forgets its failures. Brokers are independent: one backed off never
 * holds up fetches from the others. A decision table: times and random draws are passed in; one thread (the
 * consumer's polling thread) uses it.
 */
final class NodeBackoff {

    private record State(int failures, long untilMs) {
    }

    private final ExponentialBackoff backoff;
    private final Map<Integer, State> nodes = new HashMap<>();

    NodeBackoff(ExponentialBackoff backoff) {
        this.backoff = backoff;
    }

    /** A fetch to {@code nodeId} failed at {@code nowMs}; returns how long it is now left alone. */
    long failed(int nodeId, long nowMs, double random) {
        State before = nodes.get(nodeId);
        int failures = before == null ? 1 : before.failures() + 1;
        long waitMs = backoff.backoffMs(failures, random);
        nodes.put(nodeId, new State(failures, nowMs + waitMs));
        return waitMs;
    }

    /** A fetch reached {@code nodeId}: its next failure starts from the first backoff again. */
    void reached(int nodeId) {
        nodes.remove(nodeId);
    }

    /** Whether {@code nodeId} is still to be left alone at {@code nowMs}. */
    boolean isBackedOff(int nodeId, long nowMs) {
        State s = nodes.get(nodeId);
        return s != null && nowMs < s.untilMs();
    }

    /** Milliseconds until the soonest running backoff ends (at least 1), or -1 when none is running. */
    long msUntilNextReady(long nowMs) {
        long soonest = -1;
        for (State s : nodes.values()) {
            if (nowMs < s.untilMs() && (soonest < 0 || s.untilMs() - nowMs < soonest)) {
                soonest = s.untilMs() - nowMs;
            }
        }
        return soonest;
    }
}
