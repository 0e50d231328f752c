package io.raftline.client.internals.net;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.raftline.common.Time;
import java.util.concurrent.TimeUnit;

/**
 * The client's request metrics. {@code raftline.client.request.latency} (Prometheus:
 * {@code raftline_client_request_latency_seconds{client_id,api,broker}}, a histogram) per API and broker: from the
 * moment a request is handed to the connection until its response (or error) arrives; a fetch's latency includes
 * the broker's {@code fetch.max.wait.ms}. {@code raftline.client.metadata.refreshes} (Prometheus:
 * {@code raftline_client_metadata_refreshes_total{client_id,result}}) counts metadata refreshes that succeeded or
 * failed. With no registry, nothing is recorded and {@link #start} costs one clock read.
 *
 * <p>The pool holds the client's instance (the refresh counters); each connection times its requests in the one
 * {@link #forBroker} gives it.
 */
public final class RequestMetrics {

    /** Records nothing. */
    public static final RequestMetrics NONE = new RequestMetrics(null, "", null);

    private final MeterRegistry registry;
    private final String clientId;
    private final Time time;
    private final Timer produce;
    private final Timer fetch;
    private final Counter refreshed;
    private final Counter refreshFailed;

    /** The client's metrics, tagged with {@code clientId}; a null registry records nothing. */
    public RequestMetrics(MeterRegistry registry, String clientId, Time time) {
        this.registry = registry;
        this.clientId = clientId;
        this.time = time;
        this.produce = null;
        this.fetch = null;
        if (registry == null) {
            refreshed = null;
            refreshFailed = null;
            return;
        }
        refreshed = refreshes(registry, clientId, "success");
        refreshFailed = refreshes(registry, clientId, "failure");
    }

    private RequestMetrics(RequestMetrics client, String broker) {
        this.registry = client.registry;
        this.clientId = client.clientId;
        this.time = client.time;
        this.refreshed = client.refreshed;
        this.refreshFailed = client.refreshFailed;
        this.produce = timer(registry, clientId, "produce", broker);
        this.fetch = timer(registry, clientId, "fetch", broker);
    }

    /** The request timers of the connection to {@code broker} (host:port); records nothing without a registry. */
    public RequestMetrics forBroker(String broker) {
        return registry == null ? NONE : new RequestMetrics(this, broker);
    }

    private static Counter refreshes(MeterRegistry registry, String clientId, String result) {
        return Counter.builder("raftline.client.metadata.refreshes").tag("client.id", clientId).tag("result", result)
            .description("Metadata refreshes this client made, by result").register(registry);
    }

    private static Timer timer(MeterRegistry registry, String clientId, String api, String broker) {
        return Timer.builder("raftline.client.request.latency").tag("client.id", clientId).tag("api", api)
            .tag("broker", broker).description("Time from sending a request to its response").publishPercentileHistogram()
            .register(registry);
    }

    /** Whether requests are timed (a connection's instance with a registry). */
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

    /** A metadata refresh ended, {@code ok} or not. */
    public void metadataRefreshed(boolean ok) {
        Counter c = ok ? refreshed : refreshFailed;
        if (c != null) {
            c.increment();
        }
    }
}
