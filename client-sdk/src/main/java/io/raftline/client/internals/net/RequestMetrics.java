package io.raftline.client.internals.net;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.raftline.common.Time;
import java.util.concurrent.TimeUnit;

/**
 * The client's request latency per API, {@code raftline.client.request.latency} (Prometheus:
 * {@code raftline_client_request_latency_seconds{client_id,api}}, a histogram): from the moment a request is handed
 * to the connection until its response (or error) arrives. A fetch's latency includes the broker's
 * {@code fetch.max.wait.ms}. With no registry, nothing is recorded and {@link #start} costs one clock read.
 */
public final class RequestMetrics {

    /** Records nothing. */
    public static final RequestMetrics NONE = new RequestMetrics(null, "", null);

    private final Time time;
    private final Timer produce;
    private final Timer fetch;

    /** Registers the produce and fetch timers tagged with {@code clientId}; a null registry records nothing. */
    public RequestMetrics(MeterRegistry registry, String clientId, Time time) {
        this.time = time;
        if (registry == null) {
            produce = null;
            fetch = null;
            return;
        }
        produce = timer(registry, clientId, "produce");
        fetch = timer(registry, clientId, "fetch");
    }

    private static Timer timer(MeterRegistry registry, String clientId, String api) {
        return Timer.builder("raftline.client.request.latency").tag("client.id", clientId).tag("api", api)
            .description("Time from sending a request to its response").publishPercentileHistogram().register(registry);
    }

    /** Whether anything is recorded. */
    boolean enabled() {
        return produce != null;
    }

    /** The start mark of a request. */
    long start() {
        return time.nanoseconds();
    }

    void produceDone(long startNanos) {
        produce.record(time.nanoseconds() - startNanos, TimeUnit.NANOSECONDS);
    }

    void fetchDone(long startNanos) {
        fetch.record(time.nanoseconds() - startNanos, TimeUnit.NANOSECONDS);
    }
}
