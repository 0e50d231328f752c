package io.raftline.broker.rpc;

/**
 * The broker's bounds on request memory, each a config key: how many produce requests one stream may have in
 * flight ({@code produce.stream.max.in.flight.requests}), how many and how many bytes of produce requests the whole
 * broker holds ({@code queued.max.requests}, {@code queued.max.request.bytes}), how many fetches one stream may have
 * parked ({@code fetch.stream.max.in.flight.requests}) and the most bytes one fetch answer carries
 * ({@code fetch.max.bytes}).
 */
public record RequestLimits(int produceInFlightPerStream, int queuedMaxRequests, long queuedMaxRequestBytes,
                            int fetchInFlightPerStream, int fetchMaxBytes) {

    public RequestLimits {
        if (produceInFlightPerStream < 1 || queuedMaxRequests < 1 || queuedMaxRequestBytes < 1 || fetchInFlightPerStream < 1
            || fetchMaxBytes < 1) {
            throw new IllegalArgumentException("request limits must be positive: " + this);
        }
    }
}
