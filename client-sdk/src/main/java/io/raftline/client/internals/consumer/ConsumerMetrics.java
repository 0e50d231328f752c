package io.raftline.client.internals.consumer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.raftline.client.common.TopicPartition;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The consumer's meters in the application's {@link MeterRegistry}: records consumed, and the record lag (high
 * watermark minus position) per partition and at most. With no registry, nothing is recorded. In Prometheus:
 * {@code raftline_client_consumer_records_consumed_total}, {@code raftline_client_consumer_records_lag{topic,partition}}
 * and {@code raftline_client_consumer_records_lag_max}, each with a {@code client_id} label.
 */
public final class ConsumerMetrics {

    private final MeterRegistry registry;
    private final String clientId;
    private final Counter consumed;
    private final Map<TopicPartition, AtomicLong> lags = new ConcurrentHashMap<>();
    private final AtomicLong maxLag = new AtomicLong();

    /** Registers the meters tagged with the client id; a null registry records nothing. */
    public ConsumerMetrics(MeterRegistry registry, String clientId) {
        this.registry = registry;
        this.clientId = clientId;
        if (registry == null) {
            consumed = null;
            return;
        }
        consumed = Counter.builder("raftline.client.consumer.records.consumed").tag("client.id", clientId)
            .description("Records returned by poll").register(registry);
        Gauge.builder("raftline.client.consumer.records.lag.max", maxLag, AtomicLong::get).tag("client.id", clientId)
            .description("The largest record lag over the assigned partitions").register(registry);
    }

    /** Counts records handed to the application. */
    public void recordsConsumed(int n) {
        if (consumed != null) {
            consumed.increment(n);
        }
    }

    /** Updates the lag gauges from the subscription state. */
    public void updateLags(SubscriptionState subscriptions) {
        if (registry == null) {
            return;
        }
        long max = 0;
        for (TopicPartition tp : subscriptions.assignedPartitions()) {
            Long lag = subscriptions.lag(tp);
            if (lag == null) {
                continue;
            }
            lags.computeIfAbsent(tp, k -> {
                AtomicLong v = new AtomicLong();
                Gauge.builder("raftline.client.consumer.records.lag", v, AtomicLong::get).tag("client.id", clientId).tag("topic", k.topic())
                    .tag("partition", Integer.toString(k.partition())).register(registry);
                return v;
            }).set(lag);
            max = Math.max(max, lag);
        }
        maxLag.set(max);
    }
}
